/// Where the dashboard's loop reads the time: ``SystemClock`` in the program, a
/// ``ManualClock`` in tests, so that ages, highlights and frame pacing are deterministic.
public protocol DashboardClock: Sendable {
  /// Milliseconds since 1970 (the traffic journal uses the same clock).
  func now() -> Int64
}
