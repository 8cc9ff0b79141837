/// A UTC calendar date and time of day in the proleptic Gregorian calendar, with milliseconds.
///
/// The one conversion between instants and calendar fields for every date this package reads or
/// writes (property list dates, archive dates, the traffic journal's timestamps), after Howard
/// Hinnant's public-domain `civil_from_days` and `days_from_civil` algorithms.
public struct CivilTime: Sendable, Hashable {
  /// The year; 0 is 1 BC, negative years are before it.
  public var year: Int64
  /// 1 to 12.
  public var month: Int64
  /// 1 to 31.
  public var day: Int64
  /// 0 to 23.
  public var hour: Int64
  /// 0 to 59.
  public var minute: Int64
  /// 0 to 59.
  public var second: Int64
  /// 0 to 999.
  public var millisecond: Int64

  /// A date and time of day from its fields, as given: ``isValid`` says whether they name one.
  public init(
    year: Int64, month: Int64, day: Int64, hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0,
    millisecond: Int64 = 0
  ) {
    (self.year, self.month, self.day) = (year, month, day)
    (self.hour, self.minute, self.second, self.millisecond) = (hour, minute, second, millisecond)
  }

  /// The calendar fields of an instant given in milliseconds since 1970-01-01 00:00:00 UTC.
  public init(millisecondsSince1970 milliseconds: Int64) {
    // From the quotient and remainder: `days * 86_400_000` is below Int64.min for the earliest
    // instants, and would trap.
    var (days, ofDay) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
    if ofDay < 0 { (days, ofDay) = (days - 1, ofDay + 86_400_000) }
    self.init(daysSince1970: days)
    hour = ofDay / 3_600_000
    minute = ofDay / 60_000 % 60
    second = ofDay / 1000 % 60
    millisecond = ofDay % 1000
  }

  /// The start (00:00:00.000) of the day `days` after 1970-01-01 (before it when negative):
  /// `civil_from_days`.
  public init(daysSince1970 days: Int64) {
    let shifted = days + 719_468
    let era = Self.floorDivide(shifted, 146_097)
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    self.init(
      year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month,
      day: dayOfYear - (153 * monthIndex + 2) / 5 + 1)
  }

  /// Days since 1970-01-01 of the date (the time of day is not counted).
  public var daysSince1970: Int64 {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = Self.floorDivide(shiftedYear, 400)
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// Milliseconds since 1970-01-01 00:00:00 UTC.
  public var millisecondsSince1970: Int64 {
    ((daysSince1970 * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
  }

  /// Whether the day exists in its month (`02-31` does not) and the time is within a day (a leap
  /// second `:60` is not).
  public var isValid: Bool {
    guard (1...12).contains(month), (0..<24).contains(hour), (0..<60).contains(minute),
      (0..<60).contains(second), (0..<1000).contains(millisecond)
    else { return false }
    let isLeapYear = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let lengths: [Int64] = [31, isLeapYear ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return (1...lengths[Int(month) - 1]).contains(day)
  }

  /// `YYYY-MM-DDTHH:MM:SS[.mmm]Z`; milliseconds always, or only when not zero.
  public func iso8601(alwaysMilliseconds: Bool) -> String {
    var out = [UInt8]()
    out.reserveCapacity(24)
    if year < 0 { out.append(UInt8(ascii: "-")) }
    Self.digits(abs(year), 4, into: &out)
    out.append(UInt8(ascii: "-"))
    Self.digits(month, 2, into: &out)
    out.append(UInt8(ascii: "-"))
    Self.digits(day, 2, into: &out)
    out.append(UInt8(ascii: "T"))
    Self.digits(hour, 2, into: &out)
    out.append(UInt8(ascii: ":"))
    Self.digits(minute, 2, into: &out)
    out.append(UInt8(ascii: ":"))
    Self.digits(second, 2, into: &out)
    if alwaysMilliseconds || millisecond != 0 {
      out.append(UInt8(ascii: "."))
      Self.digits(millisecond, 3, into: &out)
    }
    out.append(UInt8(ascii: "Z"))
    return String(decoding: out, as: UTF8.self)
  }

  /// `value` in decimal, zero-padded to at least `width` digits.
  private static func digits(_ value: Int64, _ width: Int, into out: inout [UInt8]) {
    let text = Array(String(value).utf8)
    if text.count < width {
      out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - text.count))
    }
    out.append(contentsOf: text)
  }

  private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return value % divisor != 0 && (value < 0) != (divisor < 0) ? quotient - 1 : quotient
  }
}
