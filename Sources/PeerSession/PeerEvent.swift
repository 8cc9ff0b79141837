/// What the engine tells its handler, in order: the delegates' calls of Multipeer Connectivity
/// as values. The engine produces these; tests write them by hand.
public enum PeerEvent: Sendable, Hashable {
  /// A browser found an advertiser (`browser:foundPeer:withDiscoveryInfo:`).
  case found(PeerIdentity, info: DiscoveryInfo)
  /// An advertiser found before stopped, or its link hung up (`browser:lostPeer:`).
  case lost(PeerIdentity)
  /// An invitation arrived (`advertiser:didReceiveInvitationFromPeer:withContext:`); under
  /// the `ask` policy it waits for ``PeerEngine/answer(_:accept:)``.
  case invitation(PeerInvitation, policy: InvitationPolicy)
  /// A peer's state changed (`session:peer:didChangeState:`); `reason` says why it is
  /// `notConnected`.
  case stateChanged(PeerIdentity, PeerConnectionState, reason: PeerDisconnectReason?)
  /// Data arrived (`session:didReceiveData:fromPeer:`).
  case data([UInt8], from: PeerIdentity, mode: PeerSendMode)
  /// `count` unreliable messages from the peer were dropped because the handler fell behind.
  case unreliableDropped(from: PeerIdentity, count: Int)
  /// A resource transfer moved on.
  case resource(PeerResourceEvent)
  /// A frame was refused or out of place (raw text inside: escape it to show it).
  case refused(String)
}
