/// The panes that can hold the focus, in Tab order.
public enum Pane: String, Sendable, Hashable, CaseIterable {
  case mailboxes
  case contents
  case traffic

  /// The pane after this one in Tab order.
  public var next: Pane { cycled(by: 1) }

  /// The pane before this one in Tab order.
  public var previous: Pane { cycled(by: -1) }
}
