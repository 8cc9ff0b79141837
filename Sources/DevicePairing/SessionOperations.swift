import DeviceSession
import Dispatch

/// The operations of a ``ControlRequest`` on an activated session, with the waits each needs:
/// what a running device's control socket and a client that became the device both do.
struct SessionOperations {
  let session: SessionEngine
  /// The session's deliveries, when the caller receives them; a running device's server has
  /// none of its own and polls the session's state instead.
  let events: DeliveryLog
  let acknowledgementSeconds: Double

  /// How often the state is asked again for a change no delivery announces (an acknowledgement).
  static let pollingSeconds = 0.002

  func perform(_ request: ControlRequest) throws(SessionError) -> ControlAnswer {
    switch request {
    case .message(let identifier, let archive, let timeout):
      return .message(reply: try sendMessage(identifier: identifier, archive: archive, replyTimeout: timeout))
    case .context(let identifier, let archive, let identical):
      let update = try session.updateApplicationContext(
        archive, identifier: identifier, deliveringIdentical: identical)
      return .context(update, stored: waitForContext(update))
    case .removal(let identifiers):
      let update = try session.removeFromApplicationContext(
        identifiers ?? session.applicationContext.identifiers)
      return .context(update, stored: waitForContext(update))
    case .transfer(let identifier, let archive):
      let transfer = try session.transferFile(archive, identifier: identifier)
      let reachable = session.isReachable
      guard reachable else { return .transfer(id: transfer.id, reachable: false, stored: false) }
      let stored = events.wait(seconds: acknowledgementSeconds, polling: Self.pollingSeconds) { delivery in
        if let delivery { return delivery == .transferFinished(transfer.id) }
        return !session.outstandingTransfers.contains { $0.id == transfer.id }
      }
      return .transfer(id: transfer.id, reachable: true, stored: stored)
    case .cancel(let id):
      try session.cancelTransfer(id)
      return .cancelled
    }
  }

  private func waitForContext(_ update: SessionEngine.ContextUpdate) -> Bool {
    guard case .sent = update else { return false }
    return events.wait(seconds: acknowledgementSeconds, polling: Self.pollingSeconds) { _ in
      !session.hasUndeliveredContext
    }
  }

  private func sendMessage(identifier: String, archive: [UInt8], replyTimeout: Double?) throws(SessionError)
    -> [UInt8]?
  {
    guard let replyTimeout else {
      try session.sendMessage(archive, identifier: identifier)
      return nil
    }
    return try session.sendMessageAndWait(archive, identifier: identifier, replyTimeout: replyTimeout)
  }
}
