/// How an advertiser answers invitations.
public enum InvitationPolicy: String, Sendable, Hashable, CaseIterable {
  /// Every invitation is accepted at once.
  case always
  /// Every invitation is declined at once.
  case never
  /// Each invitation waits for ``PeerEngine/answer(_:accept:)``.
  case ask
}
