import DeviceSession

/// What the dashboard asks of a pair's devices, off its loop: a send with a session type as
/// one device (to its counterpart), and the cancel of a transfer queued on a device, running
/// or not. Calls block until the operation is done as its type says (a reply, the counterpart
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
}
