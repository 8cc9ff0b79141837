import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// The shared hermetic directory of every test target.
typealias TemporaryDirectory = TestSupport.TemporaryDirectory

/// Collects values delivered from other threads and lets a test wait for a count of them,
/// with a deadline that only bounds a failure (a passing test never waits for it).
final class Collector<Value: Sendable>: Sendable {
  private let state = Mutex<[Value]>([])
  private let signal = DispatchSemaphore(value: 0)

  func append(_ value: Value) {
    state.withLock { $0.append(value) }
    signal.signal()
  }

  var values: [Value] { state.withLock { $0 } }

  /// Waits until at least `count` values arrived or `seconds` passed; returns the values.
  func wait(for count: Int, seconds: Double = 10) -> [Value] {
    let deadline = DispatchTime.now() + seconds
    while values.count < count {
      if signal.wait(timeout: deadline) == .timedOut { break }
    }
    return values
  }
}
