import TerminalInput

/// One row of the keymap: keys, what they do, where, how help and the footer name them, the
/// `:` command that does the same, and whether it writes.
public struct KeyBinding: Sendable {
  public var keys: [Key]
  /// What the keys do (the command's arguments, if any, give it a payload instead).
  public var action: DashboardAction
  /// The panes where the keys apply; empty means everywhere. Commands apply everywhere.
  public var panes: Set<Pane>
  /// The words help and the footer show.
  public var help: String
  /// A short word for the footer, or `nil` to leave it out of the footer. The footer shows it
  /// only where the keys do something (``DashboardState/footerEntries``).
  public var footer: String?
  /// The `:` command for the binding, if it has one.
  public var command: CommandSyntax?
  /// Whether the action writes to disk: refused by `--read-only`, by key and by command alike,
  /// and shown disabled there.
  public var writes: Bool

  public init(
    _ keys: [Key], _ action: DashboardAction, panes: Set<Pane> = [], help: String, footer: String? = nil,
    command: CommandSyntax? = nil, writes: Bool = false
  ) {
    self.keys = keys
    self.action = action
    self.panes = panes
    self.help = help
    self.footer = footer
    self.command = command
    self.writes = writes
  }

  /// Whether the keys apply with the focus on `pane`.
  public func applies(in pane: Pane) -> Bool { panes.isEmpty || panes.contains(pane) }
}
