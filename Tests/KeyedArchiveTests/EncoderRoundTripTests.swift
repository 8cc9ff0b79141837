import Foundation
import PropertyList
import Testing

@testable import ArchivedValues
@testable import KeyedArchive

/// What the inspector reads, the encoder writes back: Apple's own archives round-trip.
@Suite struct EncoderRoundTripTests {
  static let fixtures: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

  static var fixtureNames: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? [])
      .filter { $0.hasSuffix(".archive") || $0.hasSuffix(".plist") }.sorted()
  }

  /// Shared ids are `$objects` indexes, which re-encoding changes: renumber them by first use.
  static func normalized(_ value: ArchivedValue) -> ArchivedValue {
    var ids: [UInt64: UInt64] = [:]
    func id(_ old: UInt64) -> UInt64 {
      if let new = ids[old] { return new }
      ids[old] = UInt64(ids.count + 1)
      return UInt64(ids.count)
    }
    func walk(_ value: ArchivedValue) -> ArchivedValue {
      switch value {
      case .shared(let first): return .shared(ArchivedSharedValue(id: id(first.id), value: walk(first.value)))
      case .reference(let reference):
        return .reference(ArchivedReference(id: id(reference.id), kind: reference.kind))
      case .array(let elements): return .array(elements.map(walk))
      case .set(let elements): return .set(elements.map(walk))
      case .orderedSet(let elements): return .orderedSet(elements.map(walk))
      case .countedSet(let elements):
        return .countedSet(elements.map { ArchivedCountedElement(value: walk($0.value), count: $0.count) })
      case .dictionary(let entries):
        return .dictionary(entries.map { ArchivedEntry(key: walk($0.key), value: walk($0.value)) })
      case .url(let url): return .url(ArchivedURL(relative: url.relative, base: url.base.map(walk)))
      case .object(var object):
        object.fields = object.fields.map { ArchivedField(key: $0.key, value: walk($0.value)) }
        return .object(object)
      default: return value
      }
    }
    return walk(value)
  }

  /// The kinds the encoder does not write (yet): their archives are passed on as bytes.
  static func unsupportedKind(in value: ArchivedValue) -> String? {
    switch value {
    case .structure: return "an NSValue structure"
    case .typedValue: return "an NSValue of an Objective-C type"
    case .attributedString: return "an attributed string"
    case .indexSet: return "an index set"
    case .indexPath: return "an index path"
    case .shared(let first): return unsupportedKind(in: first.value)
    case .array(let elements), .set(let elements), .orderedSet(let elements):
      return elements.lazy.compactMap(unsupportedKind(in:)).first
    case .countedSet(let elements): return elements.lazy.compactMap { unsupportedKind(in: $0.value) }.first
    case .dictionary(let entries):
      return entries.lazy.compactMap { unsupportedKind(in: $0.key) ?? unsupportedKind(in: $0.value) }.first
    case .url(let url): return url.base.flatMap(unsupportedKind(in:))
    case .object(let object): return object.fields.lazy.compactMap { unsupportedKind(in: $0.value) }.first
    default: return nil
    }
  }

  @Test(arguments: fixtureNames)
  func appleArchivesRoundTrip(name: String) throws {
    let original = try KeyedArchiveInspector().inspect(
      Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
    let root = original.root
    if let kind = Self.unsupportedKind(in: root) {
      // Refused with a message that names the kind, not a dump of the value.
      #expect {
        try KeyedArchiveEncoder().encode(root)
      } throws: { error in
        let message = (error as? KeyedArchiveEncodingError)?.description ?? ""
        return message.hasPrefix("cannot archive \(kind)") && message.count < 160
      }
      return
    }
    let again = try KeyedArchiveInspector().inspect(try KeyedArchiveEncoder().encode(root))
    #expect(again.isArchive)
    #expect(Self.normalized(again.root) == Self.normalized(root), "\(name)")
  }

  @Test func sharedValuesAndCyclesAreWrittenAsSharedObjects() throws {
    let row = ArchivedValue.dictionary([ArchivedEntry(key: .string("k"), value: .string("v"))])
    let value = ArchivedValue.array([
      .shared(ArchivedSharedValue(id: 7, value: row)), .reference(ArchivedReference(id: 7, kind: .shared)),
      .shared(
        ArchivedSharedValue(
          id: 9, value: .array([.string("loop"), .reference(ArchivedReference(id: 9, kind: .cycle))]))),
    ])
    let plist = try PropertyListReader().read(try KeyedArchiveEncoder().encodeBytes(value)).root
    guard case .array(let objects)? = plist["$objects"], case .array(let top)? = objects[1]["NS.objects"]
    else {
      Issue.record("no root array in \(plist)")
      return
    }
    // Both occurrences of the row are one object, and the loop refers to itself.
    #expect(top[0] == top[1])
    guard case .uid(let loop) = top[2], case .array(let inner)? = objects[Int(loop)]["NS.objects"] else {
      Issue.record("no loop")
      return
    }
    #expect(inner[1] == .uid(loop))
    // And the inspector reads the same sharing back.
    let again = try KeyedArchiveInspector().inspect(try KeyedArchiveEncoder().encode(value))
    #expect(Self.normalized(again.root) == Self.normalized(value))
  }

  @Test func foundationReadsSetsURLsAndUUIDs() throws {
    let uuid = UUID()
    let value = ArchivedValue.array([
      .set([.integer(1), .integer(2)]),
      .url(ArchivedURL(relative: "page.html", base: .url(ArchivedURL(relative: "https://example.com/dir/")))),
      .uuid(ArchiveUUID(uuid)),
    ])
    let data = try KeyedArchiveEncoder().encode(value)
    let root = try #require(try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) as? [Any])
    #expect((root[0] as? NSSet) == NSSet(array: [1, 2]))
    #expect((root[1] as? URL)?.absoluteString == "https://example.com/dir/page.html")
    #expect((root[2] as? UUID) == uuid || (root[2] as? NSUUID).map { $0 as UUID } == uuid)
  }

  @Test func aReferenceToNothingIsRefused() {
    #expect(throws: KeyedArchiveEncodingError.self) {
      try KeyedArchiveEncoder().encode(.reference(ArchivedReference(id: 3, kind: .shared)))
    }
  }
}
