/// How the mailboxes of a branch are ordered.
public enum SortOrder: String, Sendable, Hashable, CaseIterable {
  /// By identifier, byte order.
  case name
  /// Most recently changed first.
  case recency
  /// Most versions seen first.
  case activity

  /// The next order, for `s`.
  public var next: SortOrder { cycled(by: 1) }
}
