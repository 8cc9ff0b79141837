import Wormhole
import WormholeVocabulary

/// A transiting type over a simulated device's session (`session-context`, `session-file`,
/// `session-message`): what they share comes from the device's ``ListeningSession``.
///
/// Its directory and record details are the session's; the session's journal records every
/// send; what arrives is handed to the wormhole by the session; and deleting removes the
/// device's own mailboxes unless the type says otherwise.
public protocol SessionTransiting: WormholeTransiting {
  /// The device's listening session: it sends, and hands what arrives to the wormhole.
  var session: ListeningSession { get }
}

extension SessionTransiting {
  public var directory: String { session.mailboxes.directory }
  public var recordDetails: TrafficDetails { session.recordDetails }
  /// The device's session journal records every send (``WormholeTransiting/journalsItsOwnTraffic``).
  public var journalsItsOwnTraffic: Bool { true }

  public func deleteMessage(withIdentifier identifier: String) throws(WormholeError) {
    try session.mailboxes.deleteMessage(withIdentifier: identifier)
  }

  public func deleteAllMessages() throws(WormholeError) { try session.mailboxes.deleteAllMessages() }

  public var deliversIncomingMessages: Bool { true }
  public func deliverIncomingMessages(to inbox: TransitingInbox) { session.register(inbox) }
}
