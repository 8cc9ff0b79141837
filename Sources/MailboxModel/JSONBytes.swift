import PropertyList
import WormholeVocabulary

/// Pieces of the model's JSON appended as UTF-8 bytes, exactly as the `String`-building
/// ``JSONText`` and ``TrafficRecord/timestamp(_:)`` write them, without building strings on
/// the way: for the bridge, which writes a mailbox's JSON at every change.
package enum JSONBytes {
  /// `text` as an ASCII literal (a member name, punctuation).
  @inline(__always)
  package static func appendLiteral(_ text: StaticString, to out: inout [UInt8]) {
    text.withUTF8Buffer { out.append(contentsOf: $0) }
  }

  /// ``JSONText/name(_:)``.
  package static func appendName(_ name: FileName, to out: inout [UInt8]) {
    JSONText.appendString(name.string ?? name.lossyText, to: &out)
  }

  /// ``JSONText/nameBytes(_:)``: `null` for a name that is text, else its bytes in lowercase
  /// hexadecimal, quoted.
  package static func appendNameBytes(_ name: FileName, to out: inout [UInt8]) {
    guard !name.isText else {
      appendLiteral("null", to: &out)
      return
    }
    out.append(UInt8(ascii: "\""))
    for byte in name.bytes {
      out.append(hexDigit(byte >> 4))
      out.append(hexDigit(byte & 0xF))
    }
    out.append(UInt8(ascii: "\""))
  }

  /// ``JSONText/string(orNull:)``.
  package static func appendString(orNull text: String?, to out: inout [UInt8]) {
    guard let text else {
      appendLiteral("null", to: &out)
      return
    }
    JSONText.appendString(text, to: &out)
  }

  /// `value` in decimal, or `null`.
  package static func appendNumber<N: BinaryInteger>(_ value: N?, to out: inout [UInt8]) {
    guard let value else {
      appendLiteral("null", to: &out)
      return
    }
    appendDecimal(value, to: &out)
  }

  /// `value` in decimal, as `String(value)` writes it.
  package static func appendDecimal<N: BinaryInteger>(_ value: N, to out: inout [UInt8]) {
    if value < 0 {
      // The magnitude of the most negative value is not representable: let `String` do it.
      out.append(contentsOf: String(value).utf8)
      return
    }
    guard let small = UInt64(exactly: value) else {
      out.append(contentsOf: String(value).utf8)
      return
    }
    appendDigits(small, minimumWidth: 1, to: &out)
  }

  /// ``TrafficRecord/timestamp(_:)`` (`YYYY-MM-DDTHH:MM:SS.mmmZ`) as a JSON string literal.
  package static func appendTimestamp(_ milliseconds: Int64, to out: inout [UInt8]) {
    let parts = UTCTimestamp.parts(ofMilliseconds: milliseconds)
    // As `UTCTimestamp.text(ofMilliseconds:)`: years keep their last four digits.
    let year = max(parts.year, 0) % 10_000
    guard parts.month >= 0, parts.day >= 0, parts.hour >= 0, parts.minute >= 0, parts.second >= 0,
      parts.millisecond >= 0
    else {
      JSONText.appendString(TrafficRecord.timestamp(milliseconds), to: &out)
      return
    }
    // Each field with the separator before it: `"YYYY` `-MM` `-DD` `THH` `:MM` `:SS` `.mmm`.
    let fields: [(separator: Character, value: Int64, width: Int)] = [
      ("\"", year, 4), ("-", parts.month, 2), ("-", parts.day, 2), ("T", parts.hour, 2),
      (":", parts.minute, 2), (":", parts.second, 2), (".", parts.millisecond, 3),
    ]
    for field in fields {
      out.append(contentsOf: field.separator.utf8)
      appendDigits(UInt64(field.value), minimumWidth: field.width, to: &out)
    }
    out.append(contentsOf: "Z\"".utf8)
  }

  /// `value` in decimal, zero-padded to at least `minimumWidth` digits.
  private static func appendDigits(_ value: UInt64, minimumWidth: Int, to out: inout [UInt8]) {
    var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    var count = 0
    var rest = value
    // At most 20 digits: written backwards into 32 bytes, then appended in order.
    withUnsafeMutableBytes(of: &digits) { buffer in
      repeat {
        count += 1
        buffer[32 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
        rest /= 10
      } while rest > 0
      while count < minimumWidth && count < 32 {
        count += 1
        buffer[32 - count] = UInt8(ascii: "0")
      }
      out.append(contentsOf: buffer[(32 - count)...])
    }
  }

  @inline(__always)
  private static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
  }
}
