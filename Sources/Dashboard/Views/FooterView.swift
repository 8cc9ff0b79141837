import ArchivedValues
import TerminalScreen

/// The bottom line: the keys valid where the focus is, from the keymap; or the line being
/// typed (`/` filter, `:` command). Read-only, the line starts with `read-only` and the keys
/// that write are shown disabled (`footer.disabled`), as help shows them.
enum FooterView {
  static func draw(_ state: DashboardState, into screen: inout Screen, area: Rect) {
    screen.fill(area, role: "footer")
    switch state.overlay {
    case .filter(let field, let pane)?:
      let prompt = "/" + (pane == .traffic ? "traffic " : "")
      let filter = pane == .traffic ? state.trafficPane.filter : state.treePane.filter
      let notice = filter?.error ?? filter?.notice(counting: pane == .traffic ? "rows" : "names")
      drawInput(prompt, field, error: notice, into: &screen, area: area)
      return
    case .command(let field)?:
      drawInput(":", field, error: nil, into: &screen, area: area)
      return
    default: break
    }
    var x = area.x + 1
    if state.isReadOnly {
      x += screen.write("read-only", row: area.y, column: x, limit: area.maxX - x, role: "footer.key")
      x += screen.write("  ", row: area.y, column: x, limit: area.maxX - x, role: "footer")
    }
    for binding in Keymap.bindings where binding.footer != nil && binding.applies(in: state.focus) {
      if binding.footerOnlyOnPeers && state.selection?.isPeerNode != true { continue }
      guard let word = binding.footer, let key = binding.keys.first else { continue }
      let disabled = binding.writes && state.isReadOnly
      let keyText = Keymap.name(of: key)
      guard x + TerminalWidth.columns(of: keyText) + TerminalWidth.columns(of: word) + 3 <= area.maxX else {
        break
      }
      x += screen.write(keyText, row: area.y, column: x, role: disabled ? "footer.disabled" : "footer.key")
      x += screen.write(" " + word, row: area.y, column: x, role: disabled ? "footer.disabled" : "footer")
      x += screen.write("  ", row: area.y, column: x, role: "footer")
    }
  }

  private static func drawInput(
    _ prompt: String, _ field: TextField, error: String?, into screen: inout Screen, area: Rect
  ) {
    var x = area.x
    x += screen.write(prompt, row: area.y, column: x, role: "filter")
    var end = area.maxX
    if let error {
      // The error takes the right of the line, and leaves the field at least a third.
      let text = "  " + DisplayText.escaped(String(error.unicodeScalars.prefix(area.width)))
      let start = max(area.maxX - TerminalWidth.columns(of: text), x + max((area.maxX - x) / 3, 4))
      screen.write(text, row: area.y, column: start, limit: area.maxX - start, role: "filter.error")
      end = start
    }
    OverlayView.drawField(field, focused: true, row: area.y, from: x, to: end, role: "filter", into: &screen)
  }
}
