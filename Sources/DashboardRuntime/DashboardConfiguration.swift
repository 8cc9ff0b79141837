import Dashboard
import MailboxModel
import TerminalTheme

/// What the operator chose for a dashboard: where it looks, whether it may write, its theme.
public struct DashboardConfiguration: Sendable {
  /// The roots being watched, for showing directories relative to them.
  public var rootPaths: [String]
  /// Whether every action that writes is refused (`--read-only`). Give the executor the same.
  public var isReadOnly: Bool
  /// Whether clicks and the wheel are reported (`--mouse`).
  public var mouse: Bool
  /// Where `t` and `:theme` find themes.
  public var themes: ThemeCatalog
  /// The theme at start, as loaded (reduced to the terminal once it is started).
  public var theme: Theme
  /// What the model keeps: versions per mailbox (`--history N`), traffic, bytes.
  public var model: ModelConfiguration
  /// The simulator device set shown (`--device-set`): its labels and notes, given at start.
  public var deviceSet: DeviceSetLabels?
  /// The broker whose bridged machines are shown (`--broker URL`), if any.
  public var broker: String?

  public init(
    rootPaths: [String], isReadOnly: Bool = false, mouse: Bool = false,
    themes: ThemeCatalog = ThemeCatalog(userDirectory: nil), theme: Theme = ThemeCatalog.shippedDefault,
    model: ModelConfiguration = ModelConfiguration(), deviceSet: DeviceSetLabels? = nil
  ) {
    self.rootPaths = rootPaths
    self.isReadOnly = isReadOnly
    self.mouse = mouse
    self.themes = themes
    self.theme = theme
    self.model = model
    self.deviceSet = deviceSet
  }
}
