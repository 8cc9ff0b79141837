/// How the mailboxes of a branch are ordered.
public enum SortOrder: String, Sendable, Hashable, CaseIterable {
  /// By identifier, byte order.
  case name
  /// Most recently changed first.
  case recency
  /// Most versions seen first.
  case activity

  /// The next order, for `s`.
  public var next: SortOrder {
    let all = SortOrder.allCases
    return all[((all.firstIndex(of: self) ?? 0) + 1) % all.count]
  }
}
