/// The panes that can hold the focus, in Tab order.
public enum Pane: String, Sendable, Hashable, CaseIterable {
  case mailboxes
  case contents
  case traffic

  /// The pane after this one in Tab order.
  public var next: Pane {
    let all = Pane.allCases
    return all[(all.firstIndex(of: self).map { $0 + 1 } ?? 0) % all.count]
  }

  /// The pane before this one in Tab order.
  public var previous: Pane {
    let all = Pane.allCases
    return all[((all.firstIndex(of: self) ?? 0) + all.count - 1) % all.count]
  }
}
