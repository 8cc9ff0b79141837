import DeviceSession
import Wormhole
import WormholeVocabulary

/// The `session-message` transiting type on a simulated device: WatchConnectivity's live
/// messages (`sendMessage`), as MMWormhole's `MMWormholeSessionMessageTransiting`.
///
/// A message is sent at once, in order, and only while the counterpart is reachable; otherwise
/// the pass throws ``WormholeError/sessionFailed(_:code:reason:)`` with code 7007. Nothing is
/// stored: reading a message back returns `nil`, as in MMWormhole. `passMessage(nil, ...)` sends an
/// empty message, which the counterpart's listeners hear as a notification without a message. Deleting removes the device's
/// own mailbox, as MMWormhole's file transiting underneath does.
public struct SessionMessageTransiting: WormholeTransiting {
  /// The device's listening session: it sends, and hands what arrives to the wormhole.
  public let session: ListeningSession

  public init(session: ListeningSession) { self.session = session }

  public var transitingType: TransitingType { .sessionMessage }
  public var directory: String { session.mailboxes.directory }
  public var recordDetails: TrafficDetails { session.recordDetails }
  /// The device's session journal records every send (``WormholeTransiting/journalsItsOwnTraffic``).
  public var journalsItsOwnTraffic: Bool { true }

  public func writeMessage(_ archive: [UInt8], identifier: String, transfer: String) throws(WormholeError)
    -> TransitingWrite
  {
    do throws(SessionError) {
      try session.device.session.sendMessage(archive, identifier: identifier)
    } catch {
      throw ListeningSession.failure(error, transitingType)
    }
    return .handedOff(.delivered)
  }

  /// Always `nil`: a live message is never stored.
  public func message(withIdentifier identifier: String, limit: Int) throws(WormholeError) -> [UInt8]? { nil }

  public func deleteMessage(withIdentifier identifier: String) throws(WormholeError) {
    try session.mailboxes.deleteMessage(withIdentifier: identifier)
  }

  public func deleteAllMessages() throws(WormholeError) { try session.mailboxes.deleteAllMessages() }

  public var deliversIncomingMessages: Bool { true }
  public func deliverIncomingMessages(to inbox: TransitingInbox) { session.register(inbox) }
}
