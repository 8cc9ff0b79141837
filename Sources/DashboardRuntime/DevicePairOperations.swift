import DevicePairing
import DeviceRouting
import DeviceSession

/// The real ``PairOperations``: DevicePairing's ``DevicePairing/PairedDeviceClient`` on the pair
/// store under the request's home. Through the running device's control socket when `device
/// run` holds the sender's role (so a running device's queued transfer can be cancelled too),
/// otherwise as the device for the operation (run lock, activate, send, wait, stop).
public struct DevicePairOperations: PairOperations {
  /// How long a reachable counterpart has to store a context or a transfer before the send
  /// returns anyway (it stays queued).
  public var acknowledgementSeconds: Double

  /// How long a running peer has to answer a push or a deep link before the route fails with
  /// "gave no answer" (a stopped peer never holds the dashboard's writes longer).
  public var peerAnswerSeconds: Double

  public init(acknowledgementSeconds: Double = 10, peerAnswerSeconds: Double = 10) {
    self.acknowledgementSeconds = acknowledgementSeconds
    self.peerAnswerSeconds = peerAnswerSeconds
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

  public func route(_ request: PairRouteRequest) throws(PairOperationError) -> RoutedDelivery? {
    let home: String
    let address: DeviceAddress
    switch request.target {
    case .device(let deviceHome, let deviceAddress):
      home = deviceHome
      address = deviceAddress
    case .peer(let peer):
      return try route(request.delivery, to: peer)
    }
    // A push or a deep link touches no mailbox of the dashboard's: the group is only what the
    // client is made with.
    let client = PairedDeviceClient(
      store: PairStore(home: home), address: address, applicationGroup: "default")
    do throws(PairedDeviceError) {
      switch request.delivery {
      case .push(let notification): return try client.push(notification)
      case .deepLink(let link): return try client.open(link)
      }
    } catch {
      throw Self.error(error)
    }
  }

  /// Through the peer's control socket (``PeerRouteClient``), waiting at most
  /// ``peerAnswerSeconds``; `nil` when the peer no longer runs (nothing was sent).
  private func route(_ delivery: RouteDelivery, to peer: PeerRouteClient)
    throws(PairOperationError) -> RoutedDelivery?
  {
    do throws(PeerRouteError) {
      switch delivery {
      case .push(let notification): return try peer.push(notification, seconds: peerAnswerSeconds)
      case .deepLink(let link): return try peer.open(link, seconds: peerAnswerSeconds)
      }
    } catch {
      if case .notRunning = error { return nil }
      throw .failed(error.description)
    }
  }

  /// The session's error as it is (its code is shown), anything else in the client's words.
  private static func error(_ error: PairedDeviceError) -> PairOperationError {
    if let session = error.sessionError { return .session(session) }
    return .failed(error.description)
  }
}
