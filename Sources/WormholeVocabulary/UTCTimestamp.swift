/// The journal's times as text, `2026-11-29T12:41:09.123Z` (ISO 8601 / RFC 3339 in UTC with
/// milliseconds), written and read without the C library: the one formatter and the one parser
/// of the library, the model and the verbs, on one civil calendar (proleptic Gregorian, after
/// Howard Hinnant's public-domain algorithms).
public enum UTCTimestamp {
  /// A date and time of day in UTC.
  public struct Parts: Sendable, Hashable {
    public var year: Int64
    public var month: Int64
    public var day: Int64
    public var hour: Int64
    public var minute: Int64
    public var second: Int64
    public var millisecond: Int64
  }

  /// The UTC date and time of `milliseconds` since 1970.
  public static func parts(ofMilliseconds milliseconds: Int64) -> Parts {
    let days = milliseconds.dividedRoundingDown(by: 86_400_000)
    let ofDay = milliseconds - days * 86_400_000
    // Civil date from days since 1970-01-01.
    let shifted = days + 719_468
    let era = shifted.dividedRoundingDown(by: 146_097)
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return Parts(
      year: year, month: month, day: day, hour: ofDay / 3_600_000, minute: ofDay / 60_000 % 60,
      second: ofDay / 1000 % 60, millisecond: ofDay % 1000)
  }

  /// Milliseconds since 1970 of a UTC date and time, or `nil` unless it names a real one: a
  /// month 1 to 12, a day that exists in its month (`2026-02-31` does not), hours to 23,
  /// minutes and seconds to 59 (no leap second), milliseconds to 999.
  public static func milliseconds(of parts: Parts) -> Int64? {
    guard (1...12).contains(parts.month), (0..<24).contains(parts.hour), (0..<60).contains(parts.minute),
      (0..<60).contains(parts.second), (0..<1000).contains(parts.millisecond)
    else { return nil }
    let year = parts.year
    let isLeapYear = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let monthLengths: [Int64] = [31, isLeapYear ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    guard (1...monthLengths[Int(parts.month) - 1]).contains(parts.day) else { return nil }
    let month = parts.month
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = shiftedYear.dividedRoundingDown(by: 400)
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + parts.day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    return ((days * 24 + parts.hour) * 60 + parts.minute) * 60_000 + parts.second * 1000 + parts.millisecond
  }

  /// `YYYY-MM-DDTHH:MM:SS.mmmZ` for `milliseconds` since 1970 (years outside 0000 to 9999 keep
  /// their last four digits, as the journal has room for no more).
  public static func text(ofMilliseconds milliseconds: Int64) -> String {
    let parts = parts(ofMilliseconds: milliseconds)
    var out: [UInt8] = []
    out.reserveCapacity(24)
    func digits(_ value: Int64, _ width: Int) {
      var divisor: Int64 = 1
      for _ in 1..<width { divisor *= 10 }
      var value = max(value, 0) % (divisor * 10)
      while divisor > 0 {
        out.append(UInt8(ascii: "0") + UInt8(value / divisor))
        value %= divisor
        divisor /= 10
      }
    }
    let fields: [(value: Int64, width: Int, then: Unicode.Scalar)] = [
      (parts.year, 4, "-"), (parts.month, 2, "-"), (parts.day, 2, "T"), (parts.hour, 2, ":"),
      (parts.minute, 2, ":"), (parts.second, 2, "."), (parts.millisecond, 3, "Z"),
    ]
    for field in fields {
      digits(field.value, field.width)
      out.append(UInt8(ascii: field.then))
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The milliseconds since 1970 of a `YYYY-MM-DDTHH:MM:SS.mmmZ` timestamp, or `nil` unless it
  /// has exactly that form and names a real time (``milliseconds(of:)``). Years 0000 to 9999.
  public static func milliseconds(fromText text: String) -> Int64? {
    let bytes = Array(text.utf8)
    guard bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
      bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
      bytes[19] == UInt8(ascii: "."), bytes[23] == UInt8(ascii: "Z")
    else { return nil }
    func number(_ range: Range<Int>) -> Int64? {
      var value: Int64 = 0
      for index in range {
        let byte = bytes[index]
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
      let millisecond = number(20..<23)
    else { return nil }
    return milliseconds(
      of: Parts(
        year: year, month: month, day: day, hour: hour, minute: minute, second: second,
        millisecond: millisecond))
  }
}

extension Int64 {
  /// Division rounding towards negative infinity (times before 1970 fall on the right day).
  fileprivate func dividedRoundingDown(by divisor: Int64) -> Int64 {
    let quotient = self / divisor
    return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
  }
}
