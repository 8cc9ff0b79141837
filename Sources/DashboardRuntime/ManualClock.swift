import Synchronization

/// A clock that moves only when told: for tests and benchmarks of the loop. Thread-safe.
public final class ManualClock: DashboardClock {
  private let milliseconds: Mutex<Int64>

  /// A clock reading `start` (milliseconds since 1970).
  public init(start: Int64 = 1_764_500_000_000) { milliseconds = Mutex(start) }

  public func now() -> Int64 { milliseconds.withLock { $0 } }

  /// Moves the clock `delta` milliseconds forward (a negative delta is ignored).
  public func advance(by delta: Int64) {
    milliseconds.withLock { $0 += max(delta, 0) }
  }
}
