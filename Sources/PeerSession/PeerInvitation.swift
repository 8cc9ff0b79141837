/// An invitation a peer received (`MCNearbyServiceAdvertiserDelegate`'s
/// `didReceiveInvitationFromPeer:withContext:`).
public struct PeerInvitation: Sendable, Hashable {
  /// The inviter's number for it.
  public var id: UInt64
  /// The inviter.
  public var peer: PeerIdentity
  /// The archived context (an NSKeyedArchiver archive, or empty), as the inviter sent it.
  public var context: [UInt8]
  /// How many peers the inviter's session holds, itself included.
  public var sessionSize: Int
}
