import Foundation
import Testing

@testable import ArchivedValues
@testable import KeyedArchive
@testable import PropertyList

/// `NSDecimalNumber` is shown as the exact number it holds (`decimal -123.45`), read from the keys
/// Apple's `encode(with:)` writes; a layout Apple's reader would refuse is shown as the raw object.
@Suite struct DecimalNumberTests {
  /// 16 mantissa bytes as Apple writes them: `words` little-endian, then zeros.
  static func mantissa(_ words: [UInt16], bigEndian: Bool = false) -> [UInt8] {
    var bytes = [UInt8]()
    for word in words {
      let (low, high) = (UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word >> 8))
      bytes += bigEndian ? [high, low] : [low, high]
    }
    return bytes + [UInt8](repeating: 0, count: max(0, 16 - bytes.count))
  }

  /// The keys of an archived `NSDecimalNumber` as Apple writes them.
  static func fields(
    _ words: [UInt16], exponent: Int64, negative: Bool = false, bigEndian: Bool = false
  ) -> [PropertyListEntry] {
    [
      PropertyListEntry(key: "$class", value: .uid(2)),
      PropertyListEntry(key: "NS.exponent", value: .integer(exponent)),
      PropertyListEntry(key: "NS.length", value: .integer(Int64(words.count))),
      PropertyListEntry(key: "NS.negative", value: .boolean(negative)),
      PropertyListEntry(key: "NS.compact", value: .boolean(true)),
      PropertyListEntry(key: "NS.mantissa.bo", value: .integer(bigEndian ? 2 : 1)),
      PropertyListEntry(key: "NS.mantissa", value: .data(mantissa(words, bigEndian: bigEndian))),
    ]
  }

  static func inspect(_ fields: [PropertyListEntry]) throws -> Inspection {
    try KeyedArchiveInspector().inspect(
      binaryPropertyList(
        archive([
          .string("$null"), .dictionary(fields),
          classDescription("NSDecimalNumber", "NSNumber", "NSValue", "NSObject"),
        ])))
  }

  /// The decimal an archive of `fields` decodes to, recording an issue when it is not one.
  static func decimal(_ fields: [PropertyListEntry], sourceLocation: SourceLocation = #_sourceLocation) throws
    -> ArchivedDecimal?
  {
    let inspection = try inspect(fields)
    #expect(inspection.warnings.isEmpty, sourceLocation: sourceLocation)
    guard case .decimal(let decimal) = inspection.root else {
      Issue.record("expected a decimal, got \(inspection.root)", sourceLocation: sourceLocation)
      return nil
    }
    return decimal
  }

  @Test func currencyAmountIsShownAsItsNumber() throws {
    // NSDecimalNumber(string: "-123.45"): mantissa 12345, exponent -2, negative.
    let inspection = try Self.inspect(Self.fields([12345], exponent: -2, negative: true))
    #expect(inspection.warnings.isEmpty)
    #expect(inspection.root.summary(width: 80) == "-123.45")
    #expect(inspection.textTree().contains("decimal -123.45\n"), "\(inspection.textTree())")
    #expect(inspection.json().contains("\"root\":{\"$type\":\"decimal\",\"value\":\"-123.45\"}"))
  }

  @Test(arguments: [
    ([UInt16](), Int64(0), false, "0"),
    ([0], 5, true, "0"),
    ([1], 0, false, "1"),
    ([5], -1, false, "0.5"),
    ([5], -3, true, "-0.005"),
    ([1], 100, false, "1" + String(repeating: "0", count: 100)),
    ([1], -128, false, "0." + String(repeating: "0", count: 127) + "1"),
    ([0x4240, 0x000F], 0, false, "1000000"),
    (
      [UInt16](repeating: 0xFFFF, count: 8), 127, true,
      "-340282366920938463463374607431768211455" + String(repeating: "0", count: 127)
    ),
    ([0, 0, 0, 0, 0, 0, 0, 1], -38, false, "0.00005192296858534827628530496329220096"),
  ])
  func numbersAreExact(words: [UInt16], exponent: Int64, negative: Bool, text: String) throws {
    let decimal = try Self.decimal(Self.fields(words, exponent: exponent, negative: negative))
    #expect(decimal?.description == text)
  }

  @Test func noMantissaWithTheSignSetIsNaN() throws {
    let inspection = try Self.inspect(Self.fields([], exponent: 0, negative: true))
    #expect(inspection.root.summary(width: 80) == "NaN")
    #expect(inspection.json().contains("{\"$type\":\"decimal\",\"value\":\"NaN\"}"))
  }

  @Test func bigEndianMantissaWordsAreSwapped() throws {
    let decimal = try Self.decimal(Self.fields([0x0102, 0x0001], exponent: -1, bigEndian: true))
    #expect(decimal?.description == "6579.4")  // 0x0001_0102 = 65794
  }

  @Test func aMantissaOfOnlyItsSignificantWordsIsRead() throws {
    var fields = Self.fields([12345], exponent: -2)
    fields[6] = PropertyListEntry(key: "NS.mantissa", value: .data([0x39, 0x30]))
    #expect(try Self.decimal(fields)?.description == "123.45")
  }

  @Test(arguments: [
    ("mantissa shorter than its length", "NS.mantissa", PropertyListValue.data([0x39, 0x30, 0, 0])),
    ("length above 8", "NS.length", .integer(9)),
    ("negative length", "NS.length", .integer(-1)),
    ("odd mantissa", "NS.mantissa", .data([UInt8](repeating: 0, count: 15))),
    ("mantissa over 16 bytes", "NS.mantissa", .data([UInt8](repeating: 0, count: 18))),
    ("exponent out of range", "NS.exponent", .integer(200)),
    ("unknown byte order", "NS.mantissa.bo", .integer(0)),
    ("negative as a string", "NS.negative", .string("yes")),
    ("mantissa as a string", "NS.mantissa", .string("12345")),
  ])
  func malformedLayoutsFallBackToTheObject(_ name: String, key: String, value: PropertyListValue) throws {
    var fields = Self.fields([1, 2, 3], exponent: -2)
    let index = try #require(fields.firstIndex { $0.key == key })
    fields[index] = PropertyListEntry(key: key, value: value)
    try Self.expectFallback(fields)
  }

  @Test(arguments: ["NS.exponent", "NS.length", "NS.negative", "NS.mantissa.bo", "NS.mantissa"])
  func aMissingKeyFallsBackToTheObject(_ key: String) throws {
    try Self.expectFallback(Self.fields([12345], exponent: -2).filter { $0.key != key })
  }

  @Test func anUnknownKeyFallsBackToTheObject() throws {
    try Self.expectFallback(
      Self.fields([12345], exponent: -2) + [PropertyListEntry(key: "NS.extra", value: .integer(1))])
  }

  @Test func missingCompactFlagIsStillTheNumber() throws {
    let decimal = try Self.decimal(Self.fields([12345], exponent: -2).filter { $0.key != "NS.compact" })
    #expect(decimal?.description == "123.45")
    #expect(decimal?.isCompact == false)
  }

  static func expectFallback(_ fields: [PropertyListEntry], sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    let inspection = try inspect(fields)
    #expect(inspection.warnings.map(\.kind) == [.uninterpretedLayout], sourceLocation: sourceLocation)
    guard case .object(let object) = inspection.root else {
      Issue.record("expected the raw object, got \(inspection.root)", sourceLocation: sourceLocation)
      return
    }
    #expect(object.className == "NSDecimalNumber", sourceLocation: sourceLocation)
  }

  @Test func theDecimalIsWrittenBackAsAppleWritesIt() throws {
    let value = ArchivedValue.array([
      try #require(try Self.decimal(Self.fields([12345], exponent: -2, negative: true))).archived,
      try #require(try Self.decimal(Self.fields([], exponent: 0, negative: true))).archived,
      try #require(
        try Self.decimal(Self.fields([UInt16](repeating: 0xFFFF, count: 8), exponent: -128))
      ).archived,
    ])
    let bytes = try KeyedArchiveEncoder().encodeBytes(value)
    let reread = try KeyedArchiveInspector().inspect(bytes)
    #expect(reread.warnings.isEmpty)
    #expect(reread.root == value)
    // The objects' keys, byte order and mantissa size, as Apple's encode(with:) writes them.
    guard case .dictionary(let top) = try PropertyListReader().read(bytes).root,
      case .array(let objects)? = top.first(where: { $0.key == "$objects" })?.value
    else {
      Issue.record("not an archive")
      return
    }
    let decimals = objects.compactMap { object -> [PropertyListEntry]? in
      guard case .dictionary(let entries) = object, entries.contains(where: { $0.key == "NS.mantissa" })
      else {
        return nil
      }
      return entries
    }
    #expect(decimals.count == 3)
    for entries in decimals {
      #expect(
        Set(entries.map(\.key)) == [
          "$class", "NS.exponent", "NS.length", "NS.negative", "NS.compact", "NS.mantissa.bo", "NS.mantissa",
        ])
      #expect(entries.first { $0.key == "NS.mantissa.bo" }?.value == .integer(1))
      guard case .data(let mantissa)? = entries.first(where: { $0.key == "NS.mantissa" })?.value else {
        Issue.record("no mantissa bytes")
        continue
      }
      #expect(mantissa.count == 16)
    }
    #expect(reread.textTree().contains("NSDecimalNumber") == false)
  }
}

extension ArchivedDecimal {
  fileprivate var archived: ArchivedValue { .decimal(self) }
}
