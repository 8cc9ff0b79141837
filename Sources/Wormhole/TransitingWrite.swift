/// What a ``WormholeTransiting`` did with a message: whether the wormhole's journal post rings
/// its listeners, and what the post's record says of the delivery.
public struct TransitingWrite: Sendable, Hashable {
  /// Whether the post notifies the listeners that follow the directory's journal (the file
  /// types: the mailbox was replaced). When `false` (a session send, which the counterpart hears
  /// through its session) the post is a traffic record only: it carries a
  /// ``TrafficDetails/delivery`` (delivered when none is given), and listeners following the
  /// journal hear it only if the mailbox holds its write (its ``TrafficRecord/transfer``).
  public var notifiesListeners: Bool
  /// Fields for the post's record, over the transiting's ``WormholeTransiting/recordDetails``:
  /// for a session send, where it stands (delivered, queued).
  public var details: TrafficDetails

  public init(notifiesListeners: Bool, details: TrafficDetails = TrafficDetails()) {
    self.notifiesListeners = notifiesListeners
    self.details = details
  }

  /// A mailbox replaced: the listeners are notified.
  public static let notified = TransitingWrite(notifiesListeners: true)

  /// Handed elsewhere (a session): the post records the send with `delivery` and notifies no
  /// listener of this directory.
  public static func handedOff(_ delivery: TrafficDelivery) -> TransitingWrite {
    TransitingWrite(notifiesListeners: false, details: TrafficDetails(delivery: delivery))
  }
}
