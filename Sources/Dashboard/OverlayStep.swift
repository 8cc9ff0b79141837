/// What an overlay did with a key or a paste: the overlay that stays (`nil`: it was dismissed)
/// and what it asks of the dashboard, if anything.
public struct OverlayStep: Sendable {
  /// What an overlay asks of the dashboard.
  public enum Request: Sendable {
    /// Run an effect: a confirmed action, a submitted form.
    case effect(DashboardEffect)
    /// Say something in the status line (already escaped).
    case report(String, isError: Bool)
    /// Run a `:` command line.
    case command(String)
    /// Set a pane's filter to the text typed so far (empty: no filter).
    case filter(String, pane: Pane)
  }

  /// The overlay after the step; `nil` when it was dismissed.
  public var overlay: Overlay?
  public var request: Request?

  public init(_ overlay: Overlay?, _ request: Request? = nil) {
    self.overlay = overlay
    self.request = request
  }
}
