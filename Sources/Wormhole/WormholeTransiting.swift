/// How a ``Wormhole``'s messages travel: one implementation per transiting type, as MMWormhole's
/// `MMWormholeTransiting`.
///
/// The wormhole validates identifiers, archives messages, keeps the traffic journal and runs the
/// listeners; the transiting only stores, sends, reads and deletes. ``FileTransiting`` and
/// ``CoordinatedFileTransiting`` keep mailbox files in a directory; the session types (in
/// DevicePairing) carry messages to a paired simulated device and hand what arrives from it to
/// the wormhole's listeners through a ``TransitingInbox``. A transiting of your own plugs in with
/// ``Wormhole/init(transiting:options:)``.
///
/// ```swift
/// struct Recording: WormholeTransiting { ... }
/// let wormhole = try Wormhole(transiting: Recording(directory: "/tmp/wormhole"))
/// ```
///
/// Implementations are called from any thread, and several calls may overlap.
public protocol WormholeTransiting: Sendable {
  /// The type this transiting implements: the one the traffic journal names for its posts.
  var transitingType: TransitingType { get }

  /// The directory that holds the wormhole's traffic journal (and, for the file types, its
  /// mailboxes). ``Wormhole`` creates it unless `Options.createsDirectory` is off.
  var directory: String { get }

  /// The device fields of every record the wormhole journals for this transiting: for a session
  /// type, its device and peer (`<pair>/<role>`). Empty by default.
  var recordDetails: TrafficDetails { get }

  /// Stores or sends `archive` as the message for `identifier` (already validated), and says
  /// whether the wormhole's journal post notifies listeners. `transfer` names this write: a file
  /// transiting sets it on the mailbox (``Wormhole/transferAttributeName``) so that watchers pair
  /// the file with its record. For a transiting that ``deliversIncomingMessages``, an empty
  /// `archive` is a notification without a message (`passMessage(nil, ...)`): throw if the type
  /// cannot carry one.
  func writeMessage(_ archive: [UInt8], identifier: String, transfer: String) throws(WormholeError)
    -> TransitingWrite

  /// The message stored for `identifier`, or `nil` when there is none; at most `limit` bytes are
  /// read (larger ones throw ``WormholeError/messageTooLarge(path:bytes:limit:)``).
  func message(withIdentifier identifier: String, limit: Int) throws(WormholeError) -> [UInt8]?

  /// Deletes the message stored for `identifier`, if any.
  func deleteMessage(withIdentifier identifier: String) throws(WormholeError)

  /// Deletes every message this transiting stores.
  func deleteAllMessages() throws(WormholeError)

  /// Whether messages arrive through ``deliverIncomingMessages(to:)`` rather than through the
  /// directory's journal: `true` for the session types, whose counterpart is another device.
  /// The wormhole's listeners then hear only what the transiting hands them. `false` by default.
  var deliversIncomingMessages: Bool { get }

  /// Called once, when the wormhole is made, when ``deliversIncomingMessages`` is `true`: from
  /// then on the transiting hands what arrives to `inbox`, which passes it to the wormhole's
  /// listeners (and drops it once the wormhole is gone).
  func deliverIncomingMessages(to inbox: TransitingInbox)

  /// Whether the transiting journals what it does itself: `true` for the session types, whose
  /// device's session journal records every send, failure and delivery with the transfer
  /// identifier both devices share. The wormhole then appends nothing of its own (one record per
  /// event, whichever path sent it), and what its calls return is a record made in memory
  /// (sequence 0, with the transfer identifier only where the transiting gives one, such as a
  /// session-file transfer's). `false` by default: the wormhole journals each post.
  var journalsItsOwnTraffic: Bool { get }
}

extension WormholeTransiting {
  public var recordDetails: TrafficDetails { TrafficDetails() }
  public var deliversIncomingMessages: Bool { false }
  public func deliverIncomingMessages(to inbox: TransitingInbox) {}
  public var journalsItsOwnTraffic: Bool { false }
}
