import PropertyList

/// The journal's times as text, `2026-11-29T12:41:09.123Z` (ISO 8601 / RFC 3339 in UTC with
/// milliseconds), written and read without the C library: the one formatter and the one parser
/// of the library, the model and the verbs, on the one civil calendar (``CivilTime``).
public enum UTCTimestamp {
  /// A date and time of day in UTC: the package's one civil calendar.
  public typealias Parts = CivilTime

  /// The UTC date and time of `milliseconds` since 1970.
  public static func parts(ofMilliseconds milliseconds: Int64) -> Parts {
    CivilTime(millisecondsSince1970: milliseconds)
  }

  /// Milliseconds since 1970 of a UTC date and time, or `nil` unless it names a real one: a
  /// month 1 to 12, a day that exists in its month (`2026-02-31` does not), hours to 23,
  /// minutes and seconds to 59 (no leap second), milliseconds to 999.
  public static func milliseconds(of parts: Parts) -> Int64? {
    parts.isValid ? parts.millisecondsSince1970 : nil
  }

  /// `YYYY-MM-DDTHH:MM:SS.mmmZ` for `milliseconds` since 1970 (years outside 0000 to 9999 keep
  /// their last four digits, as the journal has room for no more).
  public static func text(ofMilliseconds milliseconds: Int64) -> String {
    var parts = parts(ofMilliseconds: milliseconds)
    parts.year = max(parts.year, 0) % 10_000
    return parts.iso8601(alwaysMilliseconds: true)
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
