import Foundation
import Testing

@testable import PropertyList

@Suite struct BinaryPropertyListWriterTests {
  /// Foundation's reader is the reference for everything but UIDs, which it cannot return.
  private func foundationRoundTrip(_ value: PropertyListValue) throws -> Any {
    let data = Data(try BinaryPropertyListWriter().bytes(for: value))
    #expect(data.starts(with: Array("bplist00".utf8)))
    return try PropertyListSerialization.propertyList(from: data, format: nil)
  }

  @Test func scalarsReadBackWithFoundation() throws {
    let value = PropertyListValue.array([
      .string("ascii"), .string("héllo → 😀"), .integer(0), .integer(255), .integer(256), .integer(-1),
      .integer(Int64.max), .integer(Int64.min), .real(2.5), .boolean(true), .boolean(false),
      .data([0, 1, 2]), .date(ArchiveDate(secondsSince2001: 12.5)),
    ])
    let array = try #require(try foundationRoundTrip(value) as? [Any])
    #expect(array[0] as? String == "ascii")
    #expect(array[1] as? String == "héllo → 😀")
    #expect((array[2] as? NSNumber)?.int64Value == 0)
    #expect((array[3] as? NSNumber)?.int64Value == 255)
    #expect((array[4] as? NSNumber)?.int64Value == 256)
    #expect((array[5] as? NSNumber)?.int64Value == -1)
    #expect((array[6] as? NSNumber)?.int64Value == Int64.max)
    #expect((array[7] as? NSNumber)?.int64Value == Int64.min)
    #expect((array[8] as? NSNumber)?.doubleValue == 2.5)
    #expect(array[9] as? Bool == true)
    #expect(array[10] as? Bool == false)
    #expect(array[11] as? Data == Data([0, 1, 2]))
    #expect((array[12] as? Date)?.timeIntervalSinceReferenceDate == 12.5)
  }

  @Test func longCollectionsUseAnExtendedCount() throws {
    let elements = (0..<300).map { PropertyListValue.integer(Int64($0)) }
    let text = String(repeating: "x", count: 70_000)
    let value = PropertyListValue.dictionary(["numbers": .array(elements), "text": .string(text)])
    let dictionary = try #require(try foundationRoundTrip(value) as? [String: Any])
    #expect((dictionary["numbers"] as? [NSNumber])?.map(\.intValue) == Array(0..<300))
    #expect((dictionary["text"] as? String)?.count == 70_000)
  }

  @Test func equalScalarsAreStoredOnceButTypesStayApart() throws {
    let once = try BinaryPropertyListWriter().bytes(for: .array([.string("same")]))
    let twice = try BinaryPropertyListWriter().bytes(for: .array([.string("same"), .string("same")]))
    // One more reference byte in the array; no second object, so no second offset either.
    #expect(twice.count == once.count + 1)
    let mixed = try #require(
      try foundationRoundTrip(.array([.integer(1), .boolean(true), .real(1)])) as? [Any])
    #expect(mixed[1] as? Bool == true)
    #expect((mixed[0] as? NSNumber)?.objCType.pointee != (mixed[1] as? NSNumber)?.objCType.pointee)
  }

  @Test func nestingPastTheLimitIsRefused() {
    var value = PropertyListValue.array([])
    for _ in 0..<20 { value = .array([value]) }
    #expect(throws: PropertyListWriteError.nestingTooDeep(limit: 10)) {
      try BinaryPropertyListWriter(maximumDepth: 10).bytes(for: value)
    }
  }
}
