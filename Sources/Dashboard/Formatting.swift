import TerminalScreen
import WormholeVocabulary

/// How times, ages and sizes read on screen. All in UTC, like the journal.
enum Formatting {
  /// `12:41:09.123`.
  static func clock(_ milliseconds: Int64) -> String {
    let inDay = ((milliseconds % 86_400_000) + 86_400_000) % 86_400_000
    let hours = inDay / 3_600_000
    let minutes = inDay / 60_000 % 60
    let seconds = inDay / 1000 % 60
    let millis = inDay % 1000
    return two(hours) + ":" + two(minutes) + ":" + two(seconds) + "." + three(millis)
  }

  /// A time as a row shows it, in at most 12 columns: the clock (`12:41:09.123`) on the day of
  /// `now`, else the date and minute in the year of `now` (`11-29 10:53`), else the date alone
  /// (`1970-01-01`).
  static func time(_ milliseconds: Int64, now: Int64) -> String {
    let day = floorDivision(milliseconds, 86_400_000)
    let today = floorDivision(now, 86_400_000)
    if day == today { return clock(milliseconds) }
    let date = civilDate(day: day)
    if date.year == civilDate(day: today).year {
      let inDay = milliseconds - day * 86_400_000
      return two(date.month) + "-" + two(date.day) + " " + two(inDay / 3_600_000) + ":"
        + two(inDay / 60_000 % 60)
    }
    let year = date.year < 0 || date.year > 9999 ? "\(date.year)" : four(date.year)
    return year + "-" + two(date.month) + "-" + two(date.day)
  }

  /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
  /// `civil_from_days`).
  static func civilDate(day: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let date = UTCTimestamp.Parts(daysSince1970: day)
    return (date.year, date.month, date.day)
  }

  /// `4s`, `3m`, `2h`, `5d`: how long ago.
  static func age(_ milliseconds: Int64, now: Int64) -> String {
    let seconds = max(now - milliseconds, 0) / 1000
    if seconds < 60 { return "\(seconds)s" }
    if seconds < 3600 { return "\(seconds / 60)m" }
    if seconds < 86_400 { return "\(seconds / 3600)h" }
    if seconds < 86_400 * 365 { return "\(seconds / 86_400)d" }
    return "\(min(seconds / (86_400 * 365), 999))y"
  }

  /// `231 B`, `4.2 KB`, `1.1 MB`, up to `9.2 EB`: never more than six columns.
  static func size(_ bytes: Int) -> String {
    guard bytes >= 1000 else { return bytes < 0 ? "0 B" : "\(bytes) B" }
    let units = ["KB", "MB", "GB", "TB", "PB", "EB"]
    var unit = 1000
    for (index, name) in units.enumerated() {
      // Tenths of this unit, rounded; the next unit once they round to 1000 of this one.
      let tenth = unit / 10
      let tenths = bytes / tenth + (bytes % tenth >= tenth / 2 ? 1 : 0)
      if tenths < 9_995 || index == units.count - 1 {
        return (tenths >= 100 ? "\((tenths + 5) / 10)" : "\(tenths / 10).\(tenths % 10)") + " " + name
      }
      unit *= 1000
    }
    return "\(bytes) B"
  }

  /// `20,000`: a count with its thousands separated.
  static func count(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = value < 0 ? "-" : ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
      out.append(digit)
    }
    return out
  }

  /// A device set's label (parts joined by ` · `: device, runtime, state and pairs, group) cut
  /// to at most `limit` columns: whole parts are left out of its middle, the last but one
  /// first, with `…` in their place, so the device and the group (what tells two labels apart)
  /// stay whole while they fit; past that, cut in its middle (``middleTruncated(_:toColumns:)``).
  static func labelTruncated(_ label: String, toColumns limit: Int) -> String {
    guard TerminalWidth.columns(of: label) > limit else { return label }
    let parts = label.split(separator: " · ", omittingEmptySubsequences: false).map(String.init)
    guard parts.count >= 3, let first = parts.first, let last = parts.last else {
      return middleTruncated(label, toColumns: limit)
    }
    let middle = parts.dropFirst().dropLast()
    for kept in stride(from: middle.count - 1, through: 0, by: -1) {
      let shortened = ([first] + middle.prefix(kept) + ["…", last]).joined(separator: " · ")
      if TerminalWidth.columns(of: shortened) <= limit { return shortened }
    }
    return middleTruncated(label, toColumns: limit)
  }

  /// `text` cut to at most `limit` columns in its middle, keeping its start and its end (where
  /// paths and identifiers often differ), with `…` where it was cut.
  static func middleTruncated(_ text: String, toColumns limit: Int) -> String {
    guard limit > 0 else { return "" }
    guard TerminalWidth.columns(of: text) > limit else { return text }
    guard limit > 4 else { return TerminalWidth.truncated(text, toColumns: limit) }
    let characters = Array(text)
    var tail: [Character] = []
    var tailWidth = 0
    for character in characters.reversed() {
      let width = TerminalWidth.columns(of: character)
      if tailWidth + width > limit / 2 { break }
      tail.append(character)
      tailWidth += width
    }
    var head = ""
    var headWidth = 0
    for character in characters.prefix(characters.count - tail.count) {
      let width = TerminalWidth.columns(of: character)
      if headWidth + width > limit - 1 - tailWidth { break }
      head.append(character)
      headWidth += width
    }
    return head + "…" + String(tail.reversed())
  }

  /// `text` padded or cut to `width` terminal columns.
  static func padded(_ text: String, _ width: Int) -> String { TerminalWidth.padded(text, toColumns: width) }

  private static func floorDivision(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return value % divisor < 0 ? quotient - 1 : quotient
  }

  private static func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
  private static func three(_ value: Int64) -> String {
    value < 10 ? "00\(value)" : value < 100 ? "0\(value)" : "\(value)"
  }
  private static func four(_ value: Int64) -> String {
    String(repeating: "0", count: max(4 - String(value).count, 0)) + String(value)
  }
}
