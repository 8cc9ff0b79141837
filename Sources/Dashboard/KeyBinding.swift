import TerminalInput

/// One row of the keymap: keys, what they do, where, and how help and the footer name them.
public struct KeyBinding: Sendable {
  public var keys: [Key]
  public var action: DashboardAction
  /// The panes where the binding applies; empty means everywhere.
  public var panes: Set<Pane>
  /// The words help and the footer show.
  public var help: String
  /// A short word for the footer, or `nil` to leave it out of the footer.
  public var footer: String?
  /// Whether the action writes to disk (disabled by `--read-only`).
  public var writes: Bool

  public init(
    _ keys: [Key], _ action: DashboardAction, panes: Set<Pane> = [], help: String, footer: String? = nil,
    writes: Bool = false
  ) {
    self.keys = keys
    self.action = action
    self.panes = panes
    self.help = help
    self.footer = footer
    self.writes = writes
  }

  /// Whether the binding applies with the focus on `pane`.
  public func applies(in pane: Pane) -> Bool { panes.isEmpty || panes.contains(pane) }
}
