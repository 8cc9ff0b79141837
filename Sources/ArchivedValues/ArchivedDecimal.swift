/// An archived `NSDecimalNumber`: Foundation's `NSDecimal`, a mantissa of up to eight 16-bit
/// words times a signed power of ten, kept exactly as archived.
///
/// ``description`` is the exact number as `NSDecimalNumber`'s own `description` writes it: plain
/// digits with a `.` and never an exponent form (Foundation prints `1e100` as a 1 and 100 zeros;
/// the longest text, 39 digits at exponent -128, is under 170 characters), `-` for a negative
/// number, `0` for a zero mantissa and `NaN` for no mantissa with the sign set.
public struct ArchivedDecimal: Sendable, Hashable, CustomStringConvertible {
  /// The most mantissa words an `NSDecimal` holds (`NSDecimalMaxSize`).
  public static let maximumWords = 8

  /// The power of ten (`NS.exponent`), -128...127 as `NSDecimal` stores it.
  public var exponent: Int8
  /// `NS.negative`; with no mantissa words it makes the value NaN.
  public var isNegative: Bool
  /// `NS.compact`: the archiver's note that the mantissa has no trailing decimal zeros. Kept to
  /// write it back; it does not change the value.
  public var isCompact: Bool
  /// The significant mantissa words (`NS.length` of them), least significant first.
  public let words: [UInt16]

  /// A decimal of `words` (least significant first) times ten to the `exponent`; `nil` for more
  /// than ``maximumWords`` words, which no `NSDecimal` can hold.
  public init?(words: [UInt16], exponent: Int8, isNegative: Bool, isCompact: Bool) {
    guard words.count <= Self.maximumWords else { return nil }
    self.words = words
    self.exponent = exponent
    self.isNegative = isNegative
    self.isCompact = isCompact
  }

  /// Whether this is `NSDecimalNumber.notANumber`: no mantissa words, negative.
  public var isNaN: Bool { words.isEmpty && isNegative }

  /// The mantissa as an unsigned integer (it fits in 128 bits).
  public var mantissa: UInt128 {
    var value: UInt128 = 0
    for word in words.reversed() { value = value << 16 | UInt128(word) }
    return value
  }

  /// The exact number: `-123.45`, `0`, `NaN`, `1` and 100 zeros for 1e100.
  public var description: String {
    if isNaN { return "NaN" }
    let mantissa = mantissa
    guard mantissa != 0 else { return "0" }
    var digits = String(mantissa)
    if exponent > 0 {
      digits += String(repeating: "0", count: Int(exponent))
    } else if exponent < 0 {
      let places = -Int(exponent)
      if digits.count <= places { digits = String(repeating: "0", count: places - digits.count + 1) + digits }
      digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -places))
    }
    return isNegative ? "-" + digits : digits
  }

  /// The nearest `Double`, for sparklines; `nil` for NaN.
  public var approximateValue: Double? {
    isNaN ? nil : Double(description)
  }
}
