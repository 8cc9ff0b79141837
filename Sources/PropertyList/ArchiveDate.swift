/// A moment as property lists and keyed archives store it: seconds since 2001-01-01 00:00:00 UTC,
/// the reference date of Apple's `NSDate`.
///
/// A plain value without Foundation, so the layers that only show dates need not link it; the
/// decoder's module converts to and from Foundation's `Date`.
public struct ArchiveDate: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// Seconds since 2001-01-01 00:00:00 UTC (negative before it), as archived.
  public var secondsSince2001: Double

  /// Seconds from 1970-01-01 to 2001-01-01, both UTC.
  public static let secondsFrom1970To2001: Double = 978_307_200

  public init(secondsSince2001: Double) { self.secondsSince2001 = secondsSince2001 }

  public init(secondsSince1970: Double) { secondsSince2001 = secondsSince1970 - Self.secondsFrom1970To2001 }

  /// Seconds since 1970-01-01 00:00:00 UTC.
  public var secondsSince1970: Double { secondsSince2001 + Self.secondsFrom1970To2001 }

  public static func < (left: ArchiveDate, right: ArchiveDate) -> Bool {
    left.secondsSince2001 < right.secondsSince2001
  }

  /// RFC 3339 / ISO 8601 in UTC, such as `2026-11-29T12:41:09.123Z`: milliseconds (rounded) only
  /// when there are some, years before 0001 with a sign. Dates no calendar can hold (not finite,
  /// or beyond ±10^14 s) read `invalid date (N s since 2001)`.
  public var iso8601: String {
    let seconds = secondsSince1970
    guard seconds.isFinite, abs(seconds) < 1e14 else {
      return "invalid date (\(secondsSince2001) s since 2001)"
    }
    let whole = seconds.rounded(.down)
    var total = Int64(whole)
    // Round the fraction to milliseconds, carrying into the second if needed.
    var millis = Int64(((seconds - whole) * 1000).rounded())
    if millis == 1000 {
      millis = 0
      total += 1
    }
    return CivilTime(millisecondsSince1970: total * 1000 + millis).iso8601(alwaysMilliseconds: false)
  }

  public var description: String { iso8601 }
}
