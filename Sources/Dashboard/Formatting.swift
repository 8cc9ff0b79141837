import TerminalScreen

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

  /// `4s`, `3m`, `2h`, `5d`: how long ago.
  static func age(_ milliseconds: Int64, now: Int64) -> String {
    let seconds = max(now - milliseconds, 0) / 1000
    if seconds < 60 { return "\(seconds)s" }
    if seconds < 3600 { return "\(seconds / 60)m" }
    if seconds < 86_400 { return "\(seconds / 3600)h" }
    if seconds < 86_400 * 365 { return "\(seconds / 86_400)d" }
    return "\(min(seconds / (86_400 * 365), 999))y"
  }

  /// `231 B`, `4.2 KB`, `1.1 MB`.
  static func size(_ bytes: Int) -> String {
    if bytes < 1000 { return "\(bytes) B" }
    if bytes < 1_000_000 { return decimal(bytes, 1000) + " KB" }
    if bytes < 1_000_000_000 { return decimal(bytes, 1_000_000) + " MB" }
    return decimal(bytes, 1_000_000_000) + " GB"
  }

  private static func decimal(_ value: Int, _ unit: Int) -> String {
    let tenths = (value * 10 + unit / 2) / unit
    return tenths >= 100 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
  }

  /// `text` padded or cut to `width` terminal columns.
  static func padded(_ text: String, _ width: Int) -> String { TerminalWidth.padded(text, toColumns: width) }

  private static func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
  private static func three(_ value: Int64) -> String {
    value < 10 ? "00\(value)" : value < 100 ? "0\(value)" : "\(value)"
  }
}
