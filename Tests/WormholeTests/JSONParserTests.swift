import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import Wormhole

@Suite struct JSONParserTests {
  let parser = JSONParser()

  @Test func valuesMapToTheirFoundationKinds() throws {
    let value = try parser.parse(
      #"{"a":1,"b":[true,false,null],"c":"x\u00e9\ud83d\ude00\n","d":-2.5e3,"e":18446744073709551615}"#)
    #expect(
      value
        == .dictionary([
          ArchivedEntry(key: .string("a"), value: .integer(1)),
          ArchivedEntry(key: .string("b"), value: .array([.boolean(true), .boolean(false), .null])),
          ArchivedEntry(key: .string("c"), value: .string("xé😀\n")),
          ArchivedEntry(key: .string("d"), value: .real(-2500)),
          ArchivedEntry(key: .string("e"), value: .unsignedInteger(UInt64.max)),
        ]))
  }

  @Test func aRepeatedKeyKeepsItsPlaceAndTheLastValue() throws {
    #expect(
      try parser.parse(#"{"a":1,"b":2,"a":3}"#)
        == .dictionary([
          ArchivedEntry(key: .string("a"), value: .integer(3)),
          ArchivedEntry(key: .string("b"), value: .integer(2)),
        ]))
  }

  /// An object of 200,000 keys (a hostile publisher's, 3 MB) parses whole, nested and at the
  /// top, within the suite's time limit in the unoptimized build the tests (and `swift run`)
  /// use: its keys' positions were a dictionary in a tuple in an array, copied at each key, so
  /// it took minutes (60,000 keys: half a minute).
  @Test(.hangLimit) func anObjectOfManyKeysParsesInLinearTime() throws {
    let count = 200_000
    let members = (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
    guard case .array(let outer) = try parser.parse("[{" + members + "},1]"),
      case .dictionary(let entries) = outer.first
    else {
      Issue.record("not an array holding an object")
      return
    }
    #expect(entries.count == count)
    #expect(entries.last == ArchivedEntry(key: .string("k\(count - 1)"), value: .integer(Int64(count - 1))))
    #expect(outer.last == .integer(1))
  }

  @Test(arguments: [
    "", "{", "[1,]", "{\"a\"}", "01", "1.", "-", "\"\\ud800\"", "\"a\u{1}\"", "tru", "[1] 2", "1e999",
    "\"\\x\"",
  ])
  func malformedTextIsRefused(text: String) {
    #expect(throws: JSONParseError.self) { try parser.parse(text) }
  }

  @Test func deepNestingIsRefusedNotCrashed() {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    #expect(throws: JSONParseError.self) { try parser.parse(deep) }
  }

  @Test func stringsEscapeForJSONOutput() {
    #expect(JSONText.string("a\"b\\c\n\u{1}é") == #""a\"b\\c\n\u0001é""#)
  }
}

/// The encoder and the JSON parser recurse; at their default limits they must fit the smallest
/// stack a library user's thread may have (512 KB).
@Suite struct StackDepthTests {
  private func onSmallStack(_ body: @escaping @Sendable () -> Bool) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let result = Collector<Bool>()
    let thread = Thread {
      result.append(body())
      done.signal()
    }
    thread.stackSize = 512 * 1024
    thread.start()
    done.wait()
    return result.values.first ?? false
  }

  @Test func encodingAtTheDepthLimitFitsA512KilobyteStack() {
    #expect(
      onSmallStack {
        var value = ArchivedValue.array([])
        for _ in 0..<512 { value = .dictionary([ArchivedEntry(key: .string("k"), value: value)]) }
        return (try? KeyedArchiveEncoder().encodeBytes(value).count) ?? 0 > 0
      })
  }

  @Test func parsingAtTheDepthLimitFitsA512KilobyteStack() {
    #expect(
      onSmallStack {
        let text = String(repeating: "{\"k\":[", count: 256) + String(repeating: "]}", count: 256)
        return (try? JSONParser().parse(text)) != nil
      })
  }
}
