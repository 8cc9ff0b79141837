extension JSONText {
  /// The bytes that `hex` spells, two hexadecimal digits a byte, as ``nameBytes(_:)`` writes
  /// them (without the quotes); uppercase digits are read too unless `lowercaseOnly`. `nil` when
  /// `hex` holds anything else or an odd number of digits; empty for an empty `hex`.
  public static func bytes(hex: some StringProtocol, lowercaseOnly: Bool = false) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
      guard let high = digitValue(digits[index], lowercaseOnly: lowercaseOnly),
        let low = digitValue(digits[index + 1], lowercaseOnly: lowercaseOnly)
      else { return nil }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }

  private static func digitValue(_ byte: UInt8, lowercaseOnly: Bool) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F") where !lowercaseOnly: byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
