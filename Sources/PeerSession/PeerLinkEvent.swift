/// What a link tells the peer engine that runs over it.
public enum PeerLinkEvent: Sendable, Equatable {
  /// An advertiser of the browsed service appeared (or announced new discovery info).
  case announced(PeerAdvertisement)
  /// That advertiser stopped advertising.
  case withdrawn(PeerIdentity)
  /// A frame arrived from the neighbour `from` (the frame's source made it; a relay may have
  /// passed it on).
  case received(PeerFrame, from: PeerIdentity)
  /// The peer's link is gone: it stopped, or its process ended (SIGKILL included).
  case hungUp(PeerIdentity)
  /// The neighbour sent bytes that are not a frame; the link dropped that connection (a
  /// `hungUp` follows).
  case refused(PeerFrameError, from: PeerIdentity)
  /// What carries the link refused something this peer sent, in these words (a broker whose ACL
  /// does not let this peer's user publish its presence or frames): the peer cannot take part as
  /// asked until that changes.
  case denied(String)
}
