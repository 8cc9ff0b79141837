import DevicePairing
import DeviceSession

/// What the dashboard asks of a pair's devices, off its loop: a send with a session type as
/// one device (to its counterpart), the cancel of a transfer queued on a device, running
/// or not, and a push notification or deep link routed by a running device. Calls block until the operation is done as its type says (a reply, the counterpart
/// storing a context or a transfer, or its being queued); the executor calls them on its
/// writing queue.
///
/// ``DevicePairOperations`` is the real one, over DevicePairing's client (through the running
/// device's control socket, or acting as the device for the operation); tests give a fake.
public protocol PairOperations: Sendable {
  /// Sends `request` from its sender to the sender's counterpart.
  func send(_ request: PairSendRequest) throws(PairOperationError) -> PairSendOutcome
  /// Cancels transfer `id` queued on `device` of the pair store under `home`: it is never
  /// delivered.
  func cancelTransfer(_ id: UInt64, of device: DeviceAddress, home: String) throws(PairOperationError)
  /// Sends a push notification to, or opens a URL on, the request's device or running peer,
  /// which routes it and answers with the route taken; `nil` when the device or peer is not
  /// running (nothing is sent: only a running device or peer takes one).
  func route(_ request: PairRouteRequest) throws(PairOperationError) -> RoutedDelivery?
}

extension PairOperations {
  /// Operations that do not route (an older fake) refuse it, saying so.
  public func route(_ request: PairRouteRequest) throws(PairOperationError) -> RoutedDelivery? {
    throw .failed("these pair operations do not send pushes or deep links")
  }
}
