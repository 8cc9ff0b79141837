import Foundation
import TerminalScreen
import TestSupport
import Testing

@testable import ArchivedValues
@testable import KeyedArchive
@testable import PropertyList

private func inspect(_ propertyList: PropertyListValue) throws -> Inspection {
  try KeyedArchiveInspector().inspect(binaryPropertyList(propertyList))
}

/// `count` objects chained through a `next` field, the last one holding `true`.
private func chain(_ count: Int) -> PropertyListValue {
  var objects: [PropertyListValue] = [.string("$null")]
  let classIndex = UInt64(count + 1)
  for index in 1...count {
    let next: PropertyListValue = index == count ? .boolean(true) : .uid(UInt64(index + 1))
    objects.append(.dictionary(["$class": .uid(classIndex), "next": next]))
  }
  objects.append(classDescription("Node", "NSObject"))
  return archive(objects)
}

@Suite struct HostileArchiveTests {
  @Test func referenceOutOfRangeShowsThePlainPropertyList() throws {
    let inspection = try inspect(
      archive([
        .string("$null"), .dictionary(["$class": .uid(2), "NS.objects": .array([.uid(99)])]),
        classDescription("NSArray"),
      ]))
    #expect(!inspection.isArchive)
    #expect(inspection.notArchiveReason == .referenceOutOfRange(reference: 99, object: 1, objectCount: 3))
    #expect(
      inspection.textTree().contains(
        "not a keyed archive: not a valid keyed archive: object 1 refers to object 99"))
    #expect(inspection.textTree().contains("UID 99"))
  }

  @Test func topReferenceOutOfRange() throws {
    let inspection = try inspect(archive([.string("$null")], top: ["root": .uid(5)]))
    #expect(inspection.notArchiveReason == .referenceOutOfRange(reference: 5, object: nil, objectCount: 1))
  }

  /// A damaged archive's one-line summary says so before its property list: `dump`, the tree's
  /// rows and a bridge's payload gave `{$archiver: …, $objects: …}` as if it were the message.
  @Test func aDamagedArchivesSummarySaysSo() throws {
    let damaged = try inspect(archive([.string("$null"), .string("hello")], top: ["root": .uid(99)]))
    let summary = damaged.summary(width: 60)
    #expect(summary.hasPrefix(Inspection.damagedPrefix), "\(summary)")
    #expect(summary.contains("$archiver"))
    #expect(TerminalWidth.columns(of: summary) <= 60)
    #expect(damaged.summary(width: 5) == "(dam…")
    // An intact archive and a plain property list (not meant as one) are not marked.
    let intact = try inspect(archive([.string("$null"), .string("hello")], top: ["root": .uid(1)]))
    #expect(intact.summary(width: 60) == "\"hello\"")
    let plain = try inspect(.dictionary(["volume": .integer(3)]))
    #expect(plain.summary(width: 60) == "{volume: 3}")
  }

  @Test func containerContainingItselfIsACycle() throws {
    let inspection = try inspect(
      archive([
        .string("$null"), .dictionary(["$class": .uid(2), "NS.objects": .array([.uid(1), .string("x")])]),
        classDescription("NSMutableArray"),
      ]))
    #expect(
      inspection.root
        == .shared(
          ArchivedSharedValue(
            id: 1, value: .array([.reference(ArchivedReference(id: 1, kind: .cycle)), .string("x")]))))
    #expect(inspection.textTree().contains("[0]: -> @1 (cycle)"))
    #expect(inspection.json().contains("{\"$type\":\"reference\",\"id\":1,\"kind\":\"cycle\"}"))
    #expect(inspection.summary(width: 40) == "[@1, \"x\"]")
  }

  @Test func mutualCycleBetweenObjects() throws {
    let inspection = try inspect(
      archive([
        .string("$null"), .dictionary(["$class": .uid(3), "peer": .uid(2)]),
        .dictionary(["$class": .uid(3), "peer": .uid(1)]),
        classDescription("Peer", "NSObject"),
      ]))
    #expect(inspection.isArchive)
    #expect(
      inspection.textTree().hasSuffix(
        "root: @1 Peer : NSObject\n  peer: Peer : NSObject\n    peer: -> @1 (cycle)\n"))
  }

  @Test func nestingAtTheCapDecodes() throws {
    let inspection = try inspect(chain(KeyedArchiveDecoder.defaultMaximumDepth))
    #expect(inspection.isArchive)
    #expect(
      inspection.textTree().components(separatedBy: "next: ").count == KeyedArchiveDecoder.defaultMaximumDepth
        + 1)
  }

  @Test(.hangLimit) func nestingPastTheCapShowsRawObjects() throws {
    for depth in [KeyedArchiveDecoder.defaultMaximumDepth + 1, 5_000, 100_000] {
      let inspection = try inspect(chain(depth))
      #expect(inspection.notArchiveReason == .nestingTooDeep(limit: KeyedArchiveDecoder.defaultMaximumDepth))
      // The raw $objects are flat, so every object is still shown.
      #expect(inspection.textTree().contains("[\(depth)]: dictionary (2 entries)"))
    }
  }

  /// The deepest accepted archive decodes, renders and is freed on a thread with a 512 KB stack
  /// (the size of secondary threads on some platforms) in whatever build configuration runs the tests.
  @Test func deepestArchiveFitsInA512KilobyteStack() throws {
    let bytes = binaryPropertyList(chain(KeyedArchiveDecoder.defaultMaximumDepth))
    let lengths = onSmallStack {
      (try? KeyedArchiveInspector().inspect(bytes)).map { inspection in
        inspection.textTree().count + inspection.json().count + inspection.summary(width: 80).count
      }
    }
    #expect((lengths.flatMap { $0 } ?? -1) > 0)
  }

  // The limit only turns a hang into a failure; the line and byte counts prove linearity.
  @Test(.hangLimit) func diamondGraphStaysLinear() throws {
    // Object k holds object k+1 twice: 2^300 values if expanded, 300 objects as decoded.
    let levels = 300
    var objects: [PropertyListValue] = [.string("$null")]
    let classIndex = UInt64(levels + 2)
    for index in 1...levels {
      objects.append(
        .dictionary([
          "$class": .uid(classIndex),
          "NS.objects": .array([.uid(UInt64(index + 1)), .uid(UInt64(index + 1))]),
        ]))
    }
    objects.append(.string(String(repeating: "long shared text ", count: 20)))
    objects.append(classDescription("NSArray", "NSObject"))
    let inspection = try inspect(archive(objects))
    let text = inspection.textTree()
    let json = inspection.json()
    #expect(inspection.isArchive)
    #expect(text.split(separator: "\n").count < 3 * levels + 10)
    #expect(json.utf8.count < 200 * levels)
    #expect(text.contains("[1]: -> @\(levels + 1)"))
  }

  @Test func plainPropertyListIsShownWithTheReason() throws {
    let inspection = try inspect(.dictionary(["buttonNumber": .integer(1), "title": .string("hi")]))
    #expect(!inspection.isArchive)
    #expect(inspection.notArchiveReason == .missingKey("$objects"))
    #expect(inspection.summary(width: 80) == "{buttonNumber: 1, title: \"hi\"}")
    #expect(inspection.summary(width: 12) == "{buttonNumb…")
    #expect(inspection.isPlainPropertyList)
    #expect(inspection.textTree().hasPrefix("binary property list (not a keyed archive)\nplist: dictionary"))
    #expect(!inspection.textTree().contains("$objects"))
    let array = try inspect(.array([.integer(1)]))
    #expect(array.notArchiveReason == .topIsNotDictionary)
    #expect(array.json().contains("\"top\":{\"plist\":[1]}"))
  }

  @Test func topKeysOtherThanRootAndOtherArchivers() throws {
    let inspection = try inspect(
      archive(
        [.string("$null"), .string("scene"), .integer(7)], top: ["$0": .uid(1), "$1": .uid(2)],
        archiver: "SCNKeyedArchiver"))
    #expect(inspection.isArchive)
    #expect(inspection.archiver == "SCNKeyedArchiver")
    #expect(inspection.topValues.map(\.key) == ["$0", "$1"])
    #expect(
      inspection.root
        == .dictionary([
          ArchivedEntry(key: .string("$0"), value: .string("scene")),
          ArchivedEntry(key: .string("$1"), value: .integer(7)),
        ]))
    #expect(inspection.warnings.first?.message.contains("SCNKeyedArchiver") == true)
  }

  @Test func archiveNestedInDataCanBeOpened() throws {
    let inner = try fixtureBytes("NSKeyedUnarchiver-ComplexTest.plist")
    let inspection = try inspect(
      archive([
        .string("$null"), .dictionary(["$class": .uid(2), "payload": .data(inner)]),
        classDescription("Envelope", "NSObject"),
      ]))
    #expect(inspection.embeddedPropertyLists.count == 1)
    #expect(inspection.embeddedPropertyLists.first?.key == "payload")
    #expect(inspection.textTree().contains("[binary property list]"))
    let nested = try KeyedArchiveInspector().inspect(
      try #require(inspection.embeddedPropertyLists.first).data)
    #expect(nested.isArchive)
  }

  @Test func invalidClassReference() throws {
    let inspection = try inspect(archive([.string("$null"), .dictionary(["$class": .string("NSArray")])]))
    #expect(inspection.notArchiveReason == .invalidClassReference(object: 1))
    let missingName = try inspect(
      archive([.string("$null"), .dictionary(["$class": .uid(2)]), .dictionary(["x": .integer(1)])]))
    #expect(missingName.notArchiveReason == .invalidClassDescription(object: 1, classObject: 2))
  }

  @Test func hugeCountsInKnownClassesFallBackToTheGenericView() throws {
    let counted = try inspect(
      archive([
        .string("$null"), .dictionary(["$class": .uid(2), "NS.count": .integer(1 << 31)]),
        classDescription("NSCountedSet", "NSSet"),
      ]))
    guard case .object(let object) = counted.root else {
      Issue.record("expected a generic object, got \(counted.root)")
      return
    }
    #expect(object.fields == [ArchivedField(key: "NS.count", value: .integer(1 << 31))])
    #expect(counted.warnings.count == 1)
    let indexSet = try inspect(
      archive([
        .string("$null"),
        .dictionary([
          "$class": .uid(2), "NSRangeCount": .integer(1 << 31), "NSRangeData": .data([1, 2]),
        ]),
        classDescription("NSIndexSet"),
      ]))
    #expect(indexSet.isArchive)
    #expect(indexSet.textTree().contains("NSRangeCount: 2147483648"))
    let indexPath = try inspect(
      archive([
        .string("$null"),
        .dictionary([
          "$class": .uid(2), "NSIndexPathLength": .integer(Int64.max), "NSIndexPathData": .data([0xFF]),
        ]), classDescription("NSIndexPath"),
      ]))
    #expect(indexPath.isArchive)
  }

  @Test func unknownKeysOfKnownClassesAreNotDropped() throws {
    let inspection = try inspect(
      archive([
        .string("$null"), .dictionary(["$class": .uid(2), "NS.objects": .array([]), "Extra": .integer(3)]),
        classDescription("NSArray"),
      ]))
    #expect(inspection.textTree().contains("Extra: 3"))
    #expect(inspection.warnings.count == 1)
  }

  // An app that archives an NSString cut inside an emoji writes a lone surrogate, which Apple's
  // unarchiver reads back: the archive is shown, the replacement said, and still well formed.
  @Test func anUnpairedSurrogateInsideAnArchiveIsShownAsAReplacementAndSaid() throws {
    var bytes = binaryPropertyList(archive([.string("$null"), .string("hi é")]))
    // Replace the UTF-16 "é" (00 E9) with a lone surrogate.
    for index in 0..<(bytes.count - 1) where bytes[index] == 0x00 && bytes[index + 1] == 0xE9 {
      bytes[index] = 0xD8
      bytes[index + 1] = 0x3D
    }
    let inspection = try KeyedArchiveInspector().inspect(bytes)
    #expect(inspection.isArchive)
    #expect(inspection.root == .string("hi \u{FFFD}"))
    #expect(inspection.warnings.map(\.kind) == [.unpairedSurrogate])
    #expect(inspection.warnings.first?.message.contains("(0xd83d) at code unit 3, shown as U+FFFD") == true)
    #expect(inspection.isWellFormedArchive)
    #expect(inspection.json().contains("\"kind\":\"unpairedSurrogate\""))
  }

  @Test func sharedLongStringsAreReferences() throws {
    let text = String(repeating: "x", count: 200)
    let inspection = try inspect(
      archive([
        .string("$null"),
        .dictionary(["$class": .uid(3), "NS.objects": .array([.uid(2), .uid(2), .uid(4), .uid(4)])]),
        .string(text), classDescription("NSArray"), .string("short"),
      ]))
    let tree = inspection.textTree()
    #expect(tree.contains("[0]: @2 \"xxx"))
    #expect(tree.contains("[1]: -> @2\n"))
    #expect(tree.contains("[2]: \"short\"\n  [3]: \"short\"\n"))
  }

  @Test func terminalControlCharactersAreEscaped() throws {
    let inspection = try inspect(.dictionary(["k\u{1B}": .string("\u{1B}[2J\u{202E}evil\nline")]))
    let tree = inspection.textTree()
    #expect(!tree.unicodeScalars.contains("\u{1B}"))
    #expect(tree.contains(#""k\u{1b}": "\u{1b}[2J\u{202e}evil\nline""#))
    #expect(!inspection.summary(width: 200).contains("\n"))
    #expect(inspection.json().contains(#"{"k\u001b":"\u001b[2J\u202eevil\nline"}"#))
  }

  @Test func summaryCountsWideCharactersAsTwoColumns() throws {
    let inspection = try inspect(.array([.string("日本語テキスト")]))
    let summary = inspection.summary(width: 10)
    #expect(summary == "[\"日本語…")
  }

  @Test func jsonTagsDictionariesWithNonStringKeys() {
    let value = ArchivedValue.dictionary([ArchivedEntry(key: .integer(1), value: .string("one"))])
    #expect(value.json() == #"{"$type":"dictionary","entries":[{"key":1,"value":"one"}]}"#)
    let clash = ArchivedValue.dictionary([ArchivedEntry(key: .string("$type"), value: .string("date"))])
    #expect(clash.json() == #"{"$type":"dictionary","entries":[{"key":"$type","value":"date"}]}"#)
    #expect(ArchivedValue.real(.nan).json() == #"{"$type":"real","value":"nan"}"#)
  }

  @Test func randomMutationsOfFixturesNeverCrash() throws {
    var generator = SystemRandomNumberGenerator()
    for name in fixtureNames {
      let original = try fixtureBytes(name)
      for _ in 0..<40 {
        var bytes = original
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
          bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
            in: 0...255, using: &generator)
        }
        if let inspection = try? KeyedArchiveInspector().inspect(bytes) {
          _ = inspection.textTree() + inspection.json() + inspection.summary(width: 60)
        }
      }
    }
  }
}
