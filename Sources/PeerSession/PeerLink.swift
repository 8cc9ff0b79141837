import DeviceSession

/// The channel between a peer and the others: discovery announcements, frames to and from
/// peers by identity, and hang-ups.
///
/// An implementation decides how peers find and reach each other (``PeerLinkEvent`` is all the
/// engine sees), so nothing above a link assumes one machine: the local one is Unix-domain
/// sockets under the home, a broker (MQTT) one can take its place. Events are delivered one at
/// a time, in order, from one thread of the link's choosing; frames sent to one peer arrive in
/// the order they were sent, and none is lost while the link to it stays up.
public protocol PeerLink: Sendable {
  /// Starts delivering events to `handler`. Called once, before anything else.
  func start(_ handler: @escaping @Sendable (PeerLinkEvent) -> Void) throws(LinkError)

  /// Publishes `advertisement` to browsers of its service (replacing an earlier one), or with
  /// `nil` withdraws it: browsers then hear `withdrawn`.
  func advertise(_ advertisement: PeerAdvertisement?)

  /// Starts reporting advertisers of `service` (`announced`, `withdrawn`), or with `nil` stops.
  /// Advertisers already present are announced at once.
  func browse(_ service: ServiceType?)

  /// Queues `frame` for `peer` without blocking, and without calling the handler (the engine
  /// calls this with its state locked). Returns `false` when `peer` cannot be reached (nothing
  /// was queued). Leaving a session is a frame (`leave`), not a hang-up: `hungUp` means the
  /// peer's link is gone.
  func send(_ frame: PeerFrame, to peer: PeerIdentity) -> Bool

  /// Stops: withdraws the advertisement, closes every connection, and delivers no more events
  /// once it returns. Not to be called from the handler.
  func stop()
}
