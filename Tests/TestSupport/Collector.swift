import Dispatch
import Synchronization

/// Collects values delivered from other threads and lets a test wait for them, with a deadline
/// that only bounds a failure (a passing test never waits for it).
public final class Collector<Value: Sendable>: Sendable {
  private let state = Mutex<[Value]>([])
  private let signal = DispatchSemaphore(value: 0)

  public init() {}

  /// Adds `value` and wakes a waiting test.
  public func append(_ value: Value) {
    state.withLock { $0.append(value) }
    signal.signal()
  }

  /// Everything collected so far, oldest first.
  public var values: [Value] { state.withLock { $0 } }

  /// Waits until `condition` holds for the values or `seconds` passed; returns the values.
  @discardableResult
  public func wait(seconds: Double = 10, until condition: ([Value]) -> Bool) -> [Value] {
    let deadline = DispatchTime.now() + seconds
    while !condition(values) {
      if signal.wait(timeout: deadline) == .timedOut { break }
    }
    return values
  }

  /// Waits until at least `count` values arrived or `seconds` passed; returns the values.
  public func wait(for count: Int, seconds: Double = 10) -> [Value] {
    wait(seconds: seconds) { $0.count >= count }
  }
}
