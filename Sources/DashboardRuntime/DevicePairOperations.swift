import DevicePairing
import DeviceSession

/// The real ``PairOperations``: the pair store under the request's home.
///
/// A transfer of a stopped device is cancelled in its queue. Sends and the cancel of a running
/// device's transfer need DevicePairing's device client, which this build does not have yet:
/// they fail and say so.
public struct DevicePairOperations: PairOperations {
  public init() {}

  public func send(_ request: PairSendRequest) throws(PairOperationError) -> PairSendOutcome {
    throw .failed(
      "this build's dashboard cannot send with \(request.kind) yet: use wormhole-tui pass --transiting "
        + "--pair --role from a shell")
  }

  public func cancelTransfer(_ id: UInt64, of device: DeviceAddress, home: String) throws(PairOperationError)
  {
    do throws(PairStoreError) {
      try PairStore(home: home).cancelTransfer(id, of: device)
    } catch {
      if case .session(let session) = error { throw .session(session) }
      throw .failed(error.description)
    }
  }
}
