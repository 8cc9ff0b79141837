/// What a deep-link catcher did with a link it matched (Stargate's catcher returns `true` or
/// `false`).
public enum DeepLinkDecision: Sendable, Hashable {
  /// The catcher handled the link; routing ends here.
  case handled
  /// The catcher declined the link: the delegate gets it (not a later catcher).
  case declined
}
