import DeviceSession
import Dispatch

/// The ``SessionTimer`` of simulated devices: a dispatch queue's timer, off Swift's cooperative
/// thread pool, so that blocked tasks never hold up a reply timeout.
public struct DispatchSessionTimer: SessionTimer {
  private let queue: DispatchQueue

  public init(queue: DispatchQueue = DispatchQueue(label: "device-session-timer")) { self.queue = queue }

  public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) {
    queue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(seconds, 1e9) * 1e9)), execute: action)
  }
}
