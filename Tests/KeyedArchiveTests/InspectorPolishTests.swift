import Foundation
import Testing

@testable import ArchivedValues
@testable import KeyedArchive
@testable import PropertyList

private func inspect(_ propertyList: PropertyListValue) throws -> Inspection {
  try KeyedArchiveInspector().inspect(binaryPropertyList(propertyList))
}

/// Golden text tree and JSON for an archive built here, under `Built-<name>`.
private func expectBuiltGolden(
  _ inspection: Inspection, named name: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  expectGolden(inspection.textTree(), named: "Built-\(name).txt", sourceLocation: sourceLocation)
  expectGolden(inspection.json() + "\n", named: "Built-\(name).json", sourceLocation: sourceLocation)
}

/// An archive's property list with exactly the header entries given (for header deviations).
private func archiveWithHeader(_ header: [PropertyListEntry], objects: [PropertyListValue])
  -> PropertyListValue
{
  .dictionary(header + [PropertyListEntry(key: "$objects", value: .array(objects))])
}

private let oneString: [PropertyListValue] = [.string("$null"), .string("hello")]
private let rootTop = PropertyListEntry(key: "$top", value: .dictionary(["root": .uid(1)]))

@Suite struct InspectorPolishTests {
  // MARK: - SceneKit-style layout

  @Test func sceneKitLayoutReadsAsATree() throws {
    let inner = binaryPropertyList(.dictionary(["inner": .integer(1)]))
    let inspection = try inspect(
      archive(
        [
          .string("$null"),
          .dictionary(["$class": .uid(2), "rootNode": .uid(3), "attributes": .uid(8), "blob": .uid(11)]),
          classDescription("SCNScene", "NSObject"),
          .dictionary(["$class": .uid(4), "name": .uid(5), "childNodes": .uid(6)]),
          classDescription("SCNNode", "NSObject"),
          .string("root node"),
          .dictionary(["$class": .uid(7), "NS.object.1": .uid(5), "NS.object.0": .integer(3)]),
          classDescription("NSMutableArray", "NSArray", "NSObject"),
          .dictionary([
            "$class": .uid(9), "NS.key.0": .string("up"), "NS.object.0": .uid(10),
            "NS.key.1": .string("count"),
            "NS.object.1": .integer(2),
          ]),
          classDescription("NSMutableDictionary", "NSDictionary", "NSObject"),
          .dictionary(["$class": .uid(12), "NS.bytes": .data([1, 2, 3])]),
          .dictionary(["$class": .uid(12), "NS.bytes": .data(inner)]),
          classDescription("NSMutableData", "NSData", "NSObject"),
        ], archiver: "SCNKeyedArchiver"))
    #expect(inspection.isArchive)
    #expect(inspection.warnings.map(\.kind) == [.otherArchiver])
    #expect(inspection.isWellFormedArchive)
    #expect(inspection.embeddedPropertyLists.map(\.key) == ["blob"])
    expectBuiltGolden(inspection, named: "SceneKitScene")
  }

  @Test func numberedLayoutWithAGapIsNotGuessed() throws {
    let inspection = try inspect(
      archive([
        .string("$null"),
        .dictionary(["$class": .uid(2), "NS.object.0": .integer(1), "NS.object.2": .integer(3)]),
        classDescription("NSArray", "NSObject"),
      ]))
    #expect(inspection.warnings.map(\.kind) == [.uninterpretedLayout])
    guard case .object = inspection.root else {
      Issue.record("expected the generic view, got \(inspection.root)")
      return
    }
  }

  // MARK: - NSValue of Objective-C types

  @Test func typedValues() throws {
    var packed = [UInt8]()
    packed += [0xFF, 0, 0, 0]  // char -1, then padding to the int
    packed += withUnsafeBytes(of: Int32(-7).littleEndian, Array.init)
    packed += withUnsafeBytes(of: (2.5).bitPattern.littleEndian, Array.init)
    let inspection = try inspect(
      archive([
        .string("$null"),
        .array([.uid(2), .uid(4), .uid(6), .uid(8), .uid(9)]),
        // {CGPoint=dd} under generic keys.
        .dictionary(["$class": .uid(3), "$0": .string("{CGPoint=dd}"), "$1": .real(1.5), "$2": .real(-2)]),
        classDescription("NSValue", "NSObject"),
        // A struct holding a named int and an array of shorts.
        .dictionary([
          "$class": .uid(3), "$0": .string("{Pair=\"count\"i\"values\"[2s]}"), "$1": .integer(2),
          "$2": .uid(5),
        ]),
        .dictionary([
          "$class": .uid(7), "$0": .integer(10), "$1": .integer(-20), "NS.count": .integer(2),
          "NS.size": .integer(2),
          "NS.type": .integer(115),
        ]),
        // Packed bytes with alignment: char at 0, int at 4, double at 8.
        .dictionary(["$class": .uid(3), "NS.objctype": .string("{?=cid}"), "NS.bytes": .data(packed)]),
        classDescription("_NSKeyedCoderOldStyleArray", "NSObject"),
        // A bit field: not decodable, shown with its encoding.
        .dictionary(["$class": .uid(3), "$0": .string("{Flags=b3}"), "$1": .integer(5)]),
        .dictionary(["$class": .uid(3), "$0": .string("[2q]"), "$1": .uid(10)]),
        .dictionary([
          "$class": .uid(7), "$0": .integer(1), "$1": .integer(2), "NS.count": .integer(2),
          "NS.size": .integer(8),
          "NS.type": .integer(113),
        ]),
      ]))
    #expect(inspection.isArchive)
    #expect(inspection.warnings.count == 1)
    #expect(inspection.warnings.first?.message.contains("\"{Flags=b3}\"") == true)
    guard case .array(let values) = inspection.root, values.count == 5 else {
      Issue.record("unexpected root \(inspection.root)")
      return
    }
    #expect(
      values[2]
        == .typedValue(
          ArchivedTypedValue(
            encoding: "{?=cid}",
            value: .structure(name: nil, fields: [.signed(-1), .signed(-7), .real(2.5)], fieldNames: nil))))
    expectBuiltGolden(inspection, named: "TypedValues")
  }

  @Test func largeTypedArrayInASummaryIsCutEarly() throws {
    let inspection = try inspect(
      archive([
        .string("$null"),
        .dictionary([
          "$class": .uid(2), "NS.objctype": .string("[4000i]"),
          "NS.bytes": .data([UInt8](repeating: 0, count: 16_000)),
        ]),
        classDescription("NSValue", "NSObject"),
      ]))
    #expect(inspection.summary(width: 30) == "NSValue([0, 0, 0, 0, 0, 0, 0,…")
    #expect(inspection.textTree().contains("NSValue [4000i] [0, 0, 0"))
    var writer = SummaryWriter(budget: 64)
    writer.write(inspection.root)
    #expect(writer.output.utf8.count < 200)
  }

  @Test func typeEncodingGrammar() {
    #expect(ObjCType("{CGRect={CGPoint=dd}{CGSize=dd}}")?.size == 32)
    #expect(ObjCType("{?=cid}")?.size == 16)
    #expect(ObjCType("{?=ci}")?.alignment == 4)
    #expect(ObjCType("[3{?=cs}]")?.size == 12)
    #expect(ObjCType("(U=ic)")?.size == 4)
    #expect(ObjCType("r^{Opaque}")?.size == 8)
    #expect(ObjCType("@\"NSString\"") == .object)
    #expect(ObjCType("{?=i") == nil)
    #expect(ObjCType("[i]") == nil)
    #expect(ObjCType("ii") == nil)
    #expect(ObjCType("[65536[65536[65536c]]]") == nil)
    #expect(ObjCType(String(repeating: "{?=", count: 40) + "i" + String(repeating: "}", count: 40)) == nil)
  }

  // MARK: - Colours and fonts

  @Test func colours() throws {
    let inspection = try inspect(
      archive([
        .string("$null"),
        .array([.uid(2), .uid(4), .uid(5), .uid(6), .uid(9), .uid(10), .uid(11)]),
        .dictionary(["$class": .uid(3), "NSColorSpace": .integer(1), "NSRGB": .data(Array("1 0.5 0\0".utf8))]
        ),
        classDescription("NSColor", "NSObject"),
        .dictionary([
          "$class": .uid(3), "NSColorSpace": .integer(3), "NSWhite": .data(Array("0.5 0.25\0".utf8)),
        ]),
        .dictionary([
          "$class": .uid(3), "NSColorSpace": .integer(5), "NSCMYK": .data(Array("0 1 1 0 1\0".utf8)),
        ]),
        .dictionary([
          "$class": .uid(3), "NSColorSpace": .integer(6), "NSCatalogName": .uid(7), "NSColorName": .uid(8),
          "NSColor": .uid(2),
        ]),
        .string("System"), .string("controlColor"),
        .dictionary([
          "$class": .uid(12), "UIRed": .real(0), "UIGreen": .real(0.5), "UIBlue": .real(1),
          "UIAlpha": .real(0.8),
          "UIColorComponentCount": .integer(4),
        ]),
        .dictionary(["$class": .uid(12), "UIWhite": .real(1), "UIAlpha": .real(1)]),
        .dictionary(["$class": .uid(13), "UISystemColorName": .string("systemBlueColor")]),
        classDescription("UIDeviceRGBColor", "UIColor", "NSObject"),
        classDescription("UIDynamicSystemColor", "UIColor", "NSObject"),
      ]))
    #expect(inspection.warnings.isEmpty)
    guard case .array(let colours) = inspection.root else {
      Issue.record("unexpected root \(inspection.root)")
      return
    }
    let hexes = colours.map { value -> String? in
      if case .color(let color) = value { return color.hex }
      if case .shared(let shared) = value, case .color(let color) = shared.value { return color.hex }
      return "not a colour"
    }
    #expect(hexes == ["#ff8000", "#808080", nil, nil, "#0080ff", "#ffffff", nil])
    expectBuiltGolden(inspection, named: "Colours")
  }

  @Test func fonts() throws {
    let inspection = try inspect(
      archive([
        .string("$null"),
        .array([.uid(2), .uid(5)]),
        .dictionary(["$class": .uid(4), "NSName": .uid(3), "NSSize": .real(12), "NSfFlags": .integer(16)]),
        .string("Helvetica-Bold"),
        classDescription("NSFont", "NSObject"),
        .dictionary([
          "$class": .uid(6), "UIFontName": .string(".SFUI-Regular"), "UIFontFamilyName": .string(".SF UI"),
          "UIFontPointSize": .real(17), "UIFontTraits": .integer(0), "UISystemFont": .boolean(true),
          "UIFontDescriptor": .string("kept"),
        ]),
        classDescription("UICTFont", "UIFont", "NSObject"),
      ]))
    #expect(inspection.warnings.isEmpty)
    expectBuiltGolden(inspection, named: "Fonts")
  }

  // MARK: - Embedded property lists

  @Test func nestedPropertyListAsItsOwnObjectIsNamedByItsField() throws {
    let nested = binaryPropertyList(archive(oneString))
    let inspection = try inspect(
      archive([
        .string("$null"),
        .dictionary(["$class": .uid(3), "NS.keys": .array([.uid(4)]), "NS.objects": .array([.uid(2)])]),
        .data(nested),
        classDescription("NSDictionary", "NSObject"),
        .string("payload"),
      ]))
    #expect(inspection.embeddedPropertyLists.count == 1)
    #expect(inspection.embeddedPropertyLists.first?.key == "payload")
    #expect(inspection.embeddedPropertyLists.first?.object == 1)
    expectBuiltGolden(inspection, named: "NestedPropertyList")
  }

  // MARK: - $top order and sharing

  @Test func topKeysRootFirstThenSortedAndSharedObjectShownUnderRoot() throws {
    let inspection = try inspect(
      archive(
        [
          .string("$null"), .dictionary(["$class": .uid(2), "NS.objects": .array([.string("x")])]),
          classDescription("NSArray", "NSObject"),
        ], top: ["zeta": .uid(1), "root": .uid(1), "alpha": .integer(3)]))
    #expect(inspection.topValues.map(\.key) == ["root", "alpha", "zeta"])
    #expect(inspection.root == .shared(ArchivedSharedValue(id: 1, value: .array([.string("x")]))))
    #expect(inspection.root.textTree(label: "id") == "id: @1 array (1 element)\n  [0]: \"x\"\n")
    #expect(inspection.warnings.isEmpty)
  }

  // An archive written with `encode(_:forKey:)` under keys of its own has no `root`: what `read`,
  // summaries and the dashboard show (`root`) holds every key, as the warning says, not the first.
  @Test func withoutRootEveryTopKeyIsShownNotOnlyTheFirst() throws {
    let inspection = try inspect(
      archive(
        [
          .string("$null"), .dictionary(["$class": .uid(2), "NS.objects": .array([.uid(3)])]),
          classDescription("NSArray", "NSObject"), .string("hello"),
        ], top: ["version": .uid(3), "payload": .uid(1)]))
    #expect(inspection.warnings.map(\.kind) == [.topWithoutRoot])
    #expect(inspection.warnings.first?.message.contains("showing its 2 keys") == true)
    #expect(inspection.root.summary(width: 80) == "{payload: [\"hello\"], version: \"hello\"}")
    #expect(inspection.root.json() == "{\"payload\":[\"hello\"],\"version\":\"hello\"}")
    let one = try inspect(archive([.string("$null"), .string("only")], top: ["payload": .uid(1)]))
    #expect(one.root == .string("only"))
  }

  // MARK: - Honest headers

  @Test(arguments: [
    (
      "MissingArchiver", [PropertyListEntry(key: "$version", value: .integer(100_000)), rootTop],
      [InspectionWarning.Kind.missingArchiver]
    ),
    (
      "ArchiverNotAString",
      [
        PropertyListEntry(key: "$archiver", value: .integer(7)),
        PropertyListEntry(key: "$version", value: .integer(100_000)), rootTop,
      ], [.invalidArchiver]
    ),
    (
      "MissingVersion", [PropertyListEntry(key: "$archiver", value: .string("NSKeyedArchiver")), rootTop],
      [.missingVersion]
    ),
    (
      "UnknownVersion",
      [
        PropertyListEntry(key: "$archiver", value: .string("NSKeyedArchiver")),
        PropertyListEntry(key: "$version", value: .integer(5)), rootTop,
      ], [.unknownVersion]
    ),
    (
      "VersionNotAnInteger",
      [
        PropertyListEntry(key: "$archiver", value: .string("NSKeyedArchiver")),
        PropertyListEntry(key: "$version", value: .string("100000")), rootTop,
      ], [.invalidVersion]
    ),
    (
      "TopWithoutRoot",
      [
        PropertyListEntry(key: "$archiver", value: .string("NSKeyedArchiver")),
        PropertyListEntry(key: "$version", value: .integer(100_000)),
        PropertyListEntry(key: "$top", value: .dictionary(["object": .uid(1)])),
      ], [.topWithoutRoot]
    ),
    (
      "UnknownHeaderKey",
      [
        PropertyListEntry(key: "$archiver", value: .string("NSKeyedArchiver")),
        PropertyListEntry(key: "$version", value: .integer(100_000)), rootTop,
        PropertyListEntry(key: "$extra", value: .boolean(true)),
      ], [.unknownHeaderKey]
    ),
    ("NothingButObjectsAndTop", [rootTop], [.missingArchiver, .missingVersion]),
  ])
  func headerDeviations(_ name: String, _ header: [PropertyListEntry], _ kinds: [InspectionWarning.Kind])
    throws
  {
    let inspection = try inspect(archiveWithHeader(header, objects: oneString))
    #expect(inspection.isArchive)
    #expect(!inspection.isWellFormedArchive)
    #expect(inspection.warnings.map(\.kind) == kinds)
    #expect(inspection.root == .string("hello"))
    if kinds.contains(.missingArchiver) || kinds.contains(.invalidArchiver) {
      #expect(inspection.archiver == nil)
      #expect(inspection.textTree().hasPrefix("keyed archive without $archiver"))
      #expect(!inspection.textTree().contains("by NSKeyedArchiver"))
    }
    expectBuiltGolden(inspection, named: "Header-\(name)")
  }

  /// `NSArchiver` writes the old, non-keyed form: an archive claiming it is not well formed
  /// (`--strict` fails), while Apple's other keyed archivers keep the milder warning and pass.
  @Test(arguments: [
    ("NSArchiver", InspectionWarning.Kind.notKeyedArchiver, false),
    ("NSUnarchiver", .notKeyedArchiver, false),
    ("SCNKeyedArchiver", .otherArchiver, true),
    ("NSKeyedArchiver", nil, true),
  ])
  func archiverThatIsNotAKeyedArchiver(_ name: String, _ kind: InspectionWarning.Kind?, _ wellFormed: Bool)
    throws
  {
    let inspection = try inspect(archive(oneString, archiver: name))
    #expect(inspection.isArchive)
    #expect(inspection.root == .string("hello"))
    #expect(inspection.warnings.map(\.kind) == (kind.map { [$0] } ?? []))
    #expect(inspection.isWellFormedArchive == wellFormed)
  }

  /// `NSKeyedArchiver` writes every dictionary as an `NSDictionary` object: one in `$objects`
  /// without `$class` is shown as a plain dictionary, with a warning, and is not well formed.
  @Test func dictionaryObjectWithoutClassIsWarnedAbout() throws {
    let inspection = try inspect(
      archive([
        .string("$null"), .dictionary(["$class": .uid(3), "NS.objects": .array([.uid(2)])]),
        .dictionary(["plain": .integer(1)]), classDescription("NSArray", "NSObject"),
      ]))
    #expect(inspection.isArchive)
    #expect(
      inspection.root == .array([.dictionary([ArchivedEntry(key: .string("plain"), value: .integer(1))])]))
    #expect(inspection.warnings.map(\.kind) == [.dictionaryWithoutClass])
    #expect(inspection.warnings.first?.object == 2)
    #expect(!inspection.isWellFormedArchive)
    #expect(inspection.textTree().contains("warning: dictionaryWithoutClass: object 2:"))
  }

  @Test func classesKeySpelledOtherwise() throws {
    let inspection = try inspect(
      archive([
        .string("$null"), .dictionary(["$class": .uid(2), "value": .integer(1)]),
        .dictionary([
          "$classname": .string("Thing"), "$Classes": .array([.string("Thing"), .string("NSObject")]),
        ]),
      ]))
    #expect(inspection.warnings.map(\.kind) == [.classDescription, .classDescription])
    #expect(!inspection.isWellFormedArchive)
    expectBuiltGolden(inspection, named: "Header-ClassesSpelledOtherwise")
  }

  @Test func wellFormedArchive() throws {
    let inspection = try inspect(archive(oneString))
    #expect(inspection.isWellFormedArchive)
    #expect(inspection.textTree().hasPrefix("keyed archive by NSKeyedArchiver (version 100000), binary"))
  }

  // MARK: - Hostile names

  @Test func classNamesAndArchiverNeverReachATerminalRaw() throws {
    let evil = "Evil\u{1b}[2J\u{202e}\u{7}Name"
    let inspection = try inspect(
      archive(
        [
          .string("$null"), .dictionary(["$class": .uid(2), "field": .uid(3)]),
          classDescription(evil, "NS\u{1b}]0;title\u{7}Object"),
          .dictionary(["$class": .uid(4), "NS.objects": .integer(1)]),
          classDescription("NSArray", evil),
        ], archiver: "Arch\u{1b}[31m\u{9b}iver"))
    let renderings = [
      inspection.textTree(), inspection.summary(width: 200), inspection.json(),
      inspection.warnings.map(\.description).joined(separator: "\n"),
    ]
    for rendering in renderings {
      #expect(!rendering.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B || $0.value == 0x07 })
      #expect(!rendering.unicodeScalars.contains { $0.value == 0x202E })
    }
    #expect(inspection.json().contains("\\u001b"))
    #expect(inspection.textTree().contains("\\u{1b}"))
    expectBuiltGolden(inspection, named: "HostileClassNames")
  }
}
