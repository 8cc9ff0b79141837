import TerminalScreen

/// Draws a whole frame: (state, size) -> screen. Pure, and proportional to what is visible:
/// no list is sorted or walked whole here.
public enum DashboardView {
  public static func render(_ state: DashboardState) -> Screen {
    var screen = Screen(width: state.width, height: state.height)
    let layout = DashboardLayout(width: state.width, height: state.height)
    if layout.isTooSmall {
      TooSmallView.draw(into: &screen, width: state.width, height: state.height)
      return screen
    }
    StatusLineView.draw(state, into: &screen, area: layout.status)
    MailboxTreeView.draw(state, into: &screen, area: layout.tree)
    screen.fill(layout.divider, role: "border", text: "│")
    ContentsPaneView.draw(state, into: &screen, area: layout.contents)
    TrafficPaneView.draw(state, into: &screen, area: layout.traffic)
    FooterView.draw(state, into: &screen, area: layout.footer)
    if let overlay = state.overlay {
      OverlayView.draw(overlay, state: state, into: &screen, area: layout.size)
    }
    return screen
  }

  /// A pane's title row: the title, then details, on a rule; focused panes stand out.
  static func title(
    _ title: String, details: String = "", focused: Bool, into screen: inout Screen, area: Rect
  ) {
    guard area.height > 0 else { return }
    let role: StyleRole = focused ? "border.focused" : "border"
    screen.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), role: role, text: "─")
    var x = area.x
    x += screen.write(" \(title) ", row: area.y, column: x, limit: area.width, role: focused ? "title" : role)
    if !details.isEmpty {
      screen.write(details + " ", row: area.y, column: x, limit: area.maxX - x, role: role)
    }
  }
}
