import DeviceSession
import Dispatch
import Synchronization

/// The deliveries a short-lived device has had, and a way to wait for one.
final class DeliveryLog: Sendable {
  private let deliveries = Mutex<[SessionDelivery]>([])
  private let changed = DispatchSemaphore(value: 0)

  func append(_ delivery: SessionDelivery) {
    deliveries.withLock { $0.append(delivery) }
    changed.signal()
  }

  /// Waits until `condition` holds for a delivery (or the state it reflects); false after `seconds`.
  /// `condition(nil)` asks about the state alone; with `polling`, it is asked again that often
  /// (for a change no delivery announces, such as a context's acknowledgement).
  func wait(seconds: Double, polling: Double? = nil, until condition: (SessionDelivery?) -> Bool) -> Bool {
    let deadline = DispatchTime.now() + seconds
    var seen = 0
    while true {
      let list = deliveries.withLock { $0 }
      if condition(nil) || list[seen...].contains(where: condition) { return true }
      seen = list.count
      let wake = polling.map { min(deadline, DispatchTime.now() + $0) } ?? deadline
      if changed.wait(timeout: wake) == .timedOut && DispatchTime.now() >= deadline { return condition(nil) }
    }
  }
}
