/// What covers the panes and takes the keys until it is dismissed.
public enum Overlay: Sendable {
  /// The key bindings (`?`), scrolled by this many rows.
  case help(scroll: Int)
  /// The message log (`L`), scrolled up from the newest message by this many rows.
  case messages(scroll: Int)
  /// A destructive action waiting for yes or no.
  case confirm(Confirmation)
  /// The pass form (`p`).
  case pass(PassForm)
  /// The replay form (`r`): target and transiting type; Enter is the confirmation.
  case replay(ReplayForm)
  /// The route form (`u`): a push to, or a URL opened on, a device of a pair; also a replay
  /// of a push or deep-link traffic entry.
  case route(RouteForm)
  /// The `:` command line.
  case command(TextField)
  /// A `/` filter being typed for a pane.
  case filter(TextField, pane: Pane)
}

/// A question before a destructive action.
public struct Confirmation: Sendable {
  public var question: String
  public var effect: DashboardEffect

  public init(question: String, effect: DashboardEffect) {
    self.question = question
    self.effect = effect
  }
}
