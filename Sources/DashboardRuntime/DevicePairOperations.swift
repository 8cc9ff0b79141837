import DevicePairing
import DeviceSession

/// The real ``PairOperations``: DevicePairing's ``DevicePairing/PairedDeviceClient`` on the pair
/// store under the request's home. Through the running device's control socket when `device
/// run` holds the sender's role (so a running device's queued transfer can be cancelled too),
/// otherwise as the device for the operation (run lock, activate, send, wait, stop).
public struct DevicePairOperations: PairOperations {
  /// How long a reachable counterpart has to store a context or a transfer before the send
  /// returns anyway (it stays queued).
  public var acknowledgementSeconds: Double

  public init(acknowledgementSeconds: Double = 10) {
    self.acknowledgementSeconds = acknowledgementSeconds
  }

  public func send(_ request: PairSendRequest) throws(PairOperationError) -> PairSendOutcome {
    var client = PairedDeviceClient(
      store: PairStore(home: request.home), address: request.sender,
      applicationGroup: request.applicationGroup,
      optionalDirectory: request.optionalDirectory)
    client.acknowledgementSeconds = acknowledgementSeconds
    do throws(PairedDeviceError) {
      switch request.kind {
      case .message(let replyTimeout):
        let reply = try client.sendMessage(
          identifier: request.identifier, archive: request.archive, replyTimeout: replyTimeout)
        return .message(reply: reply)
      case .context(let deliveringIdentical):
        let outcome = try client.updateContext(
          identifier: request.identifier, archive: request.archive, deliveringIdentical: deliveringIdentical)
        return .context(outcome.update, isStored: outcome.isStored)
      case .file:
        let outcome = try client.transferFile(identifier: request.identifier, archive: request.archive)
        return .transfer(id: outcome.id, wasReachable: outcome.wasReachable, isStored: outcome.isStored)
      }
    } catch {
      throw Self.error(error)
    }
  }

  public func cancelTransfer(_ id: UInt64, of device: DeviceAddress, home: String) throws(PairOperationError)
  {
    // A cancel touches no mailbox: the group is only what the client is made with.
    let client = PairedDeviceClient(
      store: PairStore(home: home), address: device, applicationGroup: "default")
    do throws(PairedDeviceError) {
      _ = try client.cancelTransfer(id: id)
    } catch {
      throw Self.error(error)
    }
  }

  /// The session's error as it is (its code is shown), anything else in the client's words.
  private static func error(_ error: PairedDeviceError) -> PairOperationError {
    if let session = error.sessionError { return .session(session) }
    return .failed(error.description)
  }
}
