/// Traffic entries per second over the last minute, for the status line and the sparkline.
public struct RateHistory: Sendable, Hashable {
  /// Seconds kept.
  public static let length = 60
  /// Counts per second, oldest first; the last is the current second.
  public private(set) var counts = [Int](repeating: 0, count: RateHistory.length)
  private var second: Int64 = 0

  public init() {}

  /// Moves the window to the second holding `milliseconds`.
  mutating func advance(to milliseconds: Int64) {
    let now = milliseconds / 1000
    guard now > second else { return }
    let shift = Int(min(now - second, Int64(Self.length)))
    counts.removeFirst(shift)
    counts.append(contentsOf: repeatElement(0, count: shift))
    second = now
  }

  mutating func record(_ count: Int, at milliseconds: Int64) {
    advance(to: milliseconds)
    counts[counts.count - 1] += count
  }

  /// Entries in the last complete second.
  public var perSecond: Int { counts[counts.count - 2] }
}
