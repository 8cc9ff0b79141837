import TerminalScreen

/// The bottom line: the keys valid where the focus is, from the keymap; or the line being
/// typed (`/` filter, `:` command).
enum FooterView {
  static func draw(_ state: DashboardState, into screen: inout Screen, area: Rect) {
    screen.fill(area, role: "footer")
    switch state.overlay {
    case .filter(let field, let pane)?:
      let prompt = "/" + (pane == .traffic ? "traffic " : "")
      let filter = pane == .traffic ? state.trafficFilter : state.mailboxFilter
      let notice = filter?.error ?? filter?.notice(counting: pane == .traffic ? "rows" : "names")
      drawInput(prompt, field, error: notice, into: &screen, area: area)
      return
    case .command(let field)?:
      drawInput(":", field, error: nil, into: &screen, area: area)
      return
    default: break
    }
    var x = area.x + 1
    for binding in Keymap.bindings where binding.footer != nil && binding.applies(in: state.focus) {
      guard let word = binding.footer, let key = binding.keys.first else { continue }
      let disabled = binding.writes && state.isReadOnly
      let keyText = Keymap.name(of: key)
      guard x + TerminalWidth.columns(of: keyText) + TerminalWidth.columns(of: word) + 3 <= area.maxX else {
        break
      }
      x += screen.write(keyText, row: area.y, column: x, role: disabled ? "overlay.disabled" : "footer.key")
      x += screen.write(
        " " + word + "  ", row: area.y, column: x, role: disabled ? "overlay.disabled" : "footer")
    }
  }

  private static func drawInput(
    _ prompt: String, _ field: TextField, error: String?, into screen: inout Screen, area: Rect
  ) {
    var x = area.x
    x += screen.write(prompt, row: area.y, column: x, role: "filter")
    let shown = field.text
    x += screen.write(shown, row: area.y, column: x, limit: area.maxX - x - 1, role: "filter")
    if x < area.maxX { screen[area.y, x] = Cell("█", role: "filter") }
    if let error {
      let text = "  " + error
      let start = max(area.maxX - TerminalWidth.columns(of: text), x + 2)
      screen.write(text, row: area.y, column: start, limit: area.maxX - start, role: "filter.error")
    }
  }
}
