import ArchivedValues
import TerminalScreen

/// The bottom line: the keys that do something where the focus and the selection are, from the
/// keymap (``DashboardState/footerEntries``); or the line being typed (`/` filter, `:`
/// command). Read-only, the line starts with `read-only` and the keys
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
    // A bridged machine selected whose bridge takes no remote writes: its keys that write are
    // disabled as read-only ones are, and the reason ends the line.
    let remote = state.isReadOnly ? nil : state.remoteWriteRefusal
    // The keys that do something where the focus and selection are; on a short line whole
    // entries are left out, the general ones first, so the selection's own keys stay.
    // The remote-writes reason keeps room for its start: general keys make way for it.
    let reason = remote.map { "remote writes off: " + DisplayText.escaped($0) }
    let reserved = reason.map { min(TerminalWidth.columns(of: $0), 24) } ?? 0
    for entry in FooterEntry.fitting(state.footerEntries, columns: area.maxX - x - reserved) {
      let disabled = entry.isDisabled
      x += screen.write(entry.key, row: area.y, column: x, role: disabled ? "footer.disabled" : "footer.key")
      x += screen.write(
        " " + entry.word, row: area.y, column: x, role: disabled ? "footer.disabled" : "footer")
      x += screen.write("  ", row: area.y, column: x, role: "footer")
    }
    if let reason, x < area.maxX {
      // Cut with `…`, never silently in the middle of a word (help says it whole).
      screen.write(
        TerminalWidth.truncated(reason, toColumns: area.maxX - x), row: area.y, column: x,
        limit: area.maxX - x, role: "footer.disabled")
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
