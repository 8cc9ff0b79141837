/// When the demo's watch is away: its process stops for ``absence`` seconds, first at
/// ``firstAbsence`` after the demo starts, then once every ``period``. A value, so that the
/// timeline is the same on every run and a test can say when to look.
///
/// While the watch is away the phone's session messages fail ("not reachable", 7007), its
/// context updates and file transfers queue; when the watch returns it is handed the newest
/// context and the queued transfers, in order.
struct DemoSchedule: Sendable, Equatable {
  /// Seconds from the start to the first absence.
  var firstAbsence = 2.5
  /// Seconds the watch stays away.
  var absence = 2.5
  /// Seconds from one absence's start to the next's.
  var period = 15.0

  /// The demo's schedule.
  static let standard = DemoSchedule()

  /// Whether the watch runs `elapsed` seconds after the start.
  func isWatchRunning(at elapsed: Double) -> Bool {
    guard elapsed >= firstAbsence else { return true }
    let intoPeriod = (elapsed - firstAbsence).truncatingRemainder(dividingBy: period)
    return intoPeriod >= absence
  }

  /// The next moment after `elapsed` (strictly) at which the watch stops or returns.
  func nextChange(after elapsed: Double) -> Double {
    guard elapsed >= firstAbsence else { return firstAbsence }
    let cycles = ((elapsed - firstAbsence) / period).rounded(.down)
    let start = firstAbsence + cycles * period
    if elapsed < start + absence { return start + absence }
    return start + period
  }
}
