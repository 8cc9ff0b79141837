import ArchivedValues
import TerminalScreen

/// Boxes drawn over the panes: help, the message log, confirmations and forms.
enum OverlayView {
  static func draw(_ overlay: Overlay, state: DashboardState, into screen: inout Screen, area: Rect) {
    switch overlay {
    case .help(let scroll): drawHelp(state, scroll: scroll, into: &screen, area: area)
    case .messages(let scroll): drawMessages(state, scroll: scroll, into: &screen, area: area)
    case .confirm(let confirmation):
      let lines = wrap(confirmation.question, width: min(area.width - 6, 60))
      let box = area.centered(width: min(area.width - 2, 64), height: lines.count + 4)
      frame("Confirm", box: box, into: &screen)
      for (index, line) in lines.enumerated() {
        screen.write(line, row: box.y + 1 + index, column: box.x + 2, limit: box.width - 4, role: "overlay")
      }
      var x = box.x + 2
      let y = box.maxY - 2
      x += screen.write("y", row: y, column: x, role: "overlay.key")
      x += screen.write("/Enter confirm   ", row: y, column: x, role: "overlay")
      x += screen.write("n", row: y, column: x, role: "overlay.key")
      screen.write("/Esc cancel", row: y, column: x, role: "overlay")
    case .pass(let form): FormView.drawPassForm(form, state: state, into: &screen, area: area)
    case .replay(let form): FormView.drawReplayForm(form, state: state, into: &screen, area: area)
    case .route(let form): RouteFormView.draw(form, state: state, into: &screen, area: area)
    case .command, .filter: break  // typed on the footer line
    }
  }

  static func frame(_ title: String, box: Rect, into screen: inout Screen) {
    guard box.width >= 4, box.height >= 2 else { return }
    screen.fill(box, role: "overlay")
    for x in box.x..<box.maxX {
      screen[box.y, x] = Cell("─", role: "border.focused")
      screen[box.maxY - 1, x] = Cell("─", role: "border.focused")
    }
    for y in box.y..<box.maxY {
      screen[y, box.x] = Cell("│", role: "border.focused")
      screen[y, box.maxX - 1] = Cell("│", role: "border.focused")
    }
    screen[box.y, box.x] = Cell("┌", role: "border.focused")
    screen[box.y, box.maxX - 1] = Cell("┐", role: "border.focused")
    screen[box.maxY - 1, box.x] = Cell("└", role: "border.focused")
    screen[box.maxY - 1, box.maxX - 1] = Cell("┘", role: "border.focused")
    screen.write(" \(title) ", row: box.y, column: box.x + 2, limit: box.width - 4, role: "title")
  }

  private static func drawHelp(_ state: DashboardState, scroll: Int, into screen: inout Screen, area: Rect) {
    typealias Entry = (keys: String, help: String, role: StyleRole)
    var keys: [Entry] = []
    // A bridged machine selected whose bridge takes no remote writes: disabled as read-only is.
    let remote = state.remoteWriteRefusal.map(DisplayText.escaped)
    for binding in Keymap.bindings {
      var help = binding.help
      if !binding.panes.isEmpty {
        help += " (" + binding.panes.map(\.rawValue).sorted().joined(separator: ", ") + ")"
      }
      let disabled = binding.writes && (state.isReadOnly || remote != nil)
      if disabled { help += " — disabled: " + (state.isReadOnly ? "read-only" : remote ?? "") }
      keys.append(
        (
          binding.keys.map(Keymap.name(of:)).joined(separator: " "), help,
          disabled ? "overlay.disabled" : "overlay"
        ))
    }
    var commands: [Entry] = [("Commands", "type : first, then Enter", "title")]
    for binding in Keymap.bindings {
      guard let command = binding.command else { continue }
      var help = command.help ?? binding.help
      let disabled = binding.writes && (state.isReadOnly || remote != nil)
      if disabled { help += " — disabled: " + (state.isReadOnly ? "read-only" : remote ?? "") }
      commands.append((command.synopsis, help, disabled ? "overlay.disabled" : "overlay"))
    }
    let depth = state.model.configuration.historyDepth
    let history: [Entry] = [
      (
        "History",
        "each mailbox keeps its current version and \(depth) earlier one\(depth == 1 ? "" : "s") (v, then r replays one)",
        "overlay"
      )
    ]
    let box = area.centered(width: min(area.width - 2, 96), height: area.height - 2)
    // Each section's keys take the width of its longest, and long help wraps under itself.
    var rows: [(keys: String, keyWidth: Int, help: String, role: StyleRole)] = []
    for (index, section) in [keys, commands, history].enumerated() {
      if index > 0 { rows.append(("", 0, "", "overlay")) }
      let keyWidth = min(max(section.map { TerminalWidth.columns(of: $0.keys) }.max() ?? 0, 14), 24)
      for entry in section {
        let lines = wrap(entry.help, width: max(box.width - 5 - keyWidth, 8))
        for (line, text) in lines.enumerated() {
          rows.append((line == 0 ? entry.keys : "", keyWidth, text, entry.role))
        }
      }
    }
    let shown = area.centered(width: box.width, height: min(area.height - 2, rows.count + 3))
    frame("Keys (any other key closes)", box: shown, into: &screen)
    let visible = max(shown.height - 3, 0)
    let start = min(scroll, max(rows.count - visible, 0))
    for (offset, row) in rows.dropFirst(start).prefix(visible).enumerated() {
      let y = shown.y + 1 + offset
      let keyRole: StyleRole = row.role == "overlay" ? "overlay.key" : row.role
      screen.write(row.keys, row: y, column: shown.x + 2, limit: shown.width - 4, role: keyRole)
      let x = shown.x + 3 + row.keyWidth
      screen.write(row.help, row: y, column: x, limit: shown.maxX - 2 - x, role: row.role)
    }
    screen.write(
      "\(start + 1)-\(min(start + visible, rows.count)) of \(rows.count)  j/k scroll", row: shown.maxY - 2,
      column: shown.x + 2, limit: shown.width - 4, role: "overlay.disabled")
  }

  /// Where the message log is drawn in `area`; the reducer scrolls by the same measure.
  static func messagesBox(in area: Rect) -> Rect {
    area.centered(width: min(area.width - 2, 110), height: max(area.height - 2, 4))
  }

  /// The columns a message row may take in the box.
  static func messagesTextWidth(of box: Rect) -> Int { max(box.width - 4, 1) }

  /// The message rows shown at once in the box.
  static func messagesVisibleRows(of box: Rect) -> Int { max(box.height - 3, 1) }

  private static func drawMessages(
    _ state: DashboardState, scroll: Int, into screen: inout Screen, area: Rect
  ) {
    let box = messagesBox(in: area)
    frame("Messages, newest last (any other key closes)", box: box, into: &screen)
    let rows = state.messageLog.rows(width: messagesTextWidth(of: box))
    let visible = messagesVisibleRows(of: box)
    let end = max(rows.count - min(max(scroll, 0), max(rows.count - visible, 0)), 0)
    let start = max(end - visible, 0)
    if rows.isEmpty {
      screen.write(
        "no messages yet", row: box.y + 1, column: box.x + 2, limit: box.width - 4, role: "overlay")
    }
    for (offset, row) in rows[start..<end].enumerated() {
      screen.write(
        row.text, row: box.y + 1 + offset, column: box.x + 2, limit: messagesTextWidth(of: box),
        role: row.isError ? "form.error" : "overlay")
    }
    let count = state.messageLog.entries.count
    var footer = "\(count) message\(count == 1 ? "" : "s") (the last \(MessageLog.capacity) are kept)"
    if !rows.isEmpty { footer += " · rows \(start + 1)-\(end) of \(rows.count) · j/k PgUp/PgDn g/G scroll" }
    screen.write(footer, row: box.maxY - 2, column: box.x + 2, limit: box.width - 4, role: "overlay.disabled")
  }

  /// Draws the part of `field` around its cursor between two columns: what is visible costs,
  /// not the field's length. Shared with the footer's filter and command lines.
  static func drawField(
    _ field: TextField, focused: Bool, row: Int, from start: Int, to end: Int, role: StyleRole,
    cursorRole: StyleRole? = nil, into screen: inout Screen
  ) {
    let width = end - start
    guard width > 0 else { return }
    let window = field.window(scalars: width * 2)
    // The text before the cursor takes at most the width less the cursor cell (and a cell of
    // what follows, when something does).
    let room = max(width - 1 - (window.after.isEmpty ? 0 : min(width / 4, 8)), 1)
    var before = DisplayText.escaped(String(window.before))
    if window.clippedBefore || TerminalWidth.columns(of: before) > room {
      before = "…" + suffix(of: before, columns: room - 1)
    }
    var x = start
    x += screen.write(before, row: row, column: x, limit: end - x, role: role)
    if focused, x < end {
      screen[row, x] = Cell("█", role: cursorRole ?? role)
      x += 1
    }
    guard x < end, !window.after.isEmpty else { return }
    let after = DisplayText.escaped(String(window.after))
    let fits = TerminalWidth.columns(of: after) <= end - x && !window.clippedAfter
    if fits {
      screen.write(after, row: row, column: x, limit: end - x, role: role)
    } else {
      let used = screen.write(after, row: row, column: x, limit: end - x - 1, role: role)
      screen.write("…", row: row, column: x + used, limit: end - x - used, role: role)
    }
  }

  /// The end of `text` that fits in `columns`.
  private static func suffix(of text: String, columns: Int) -> String {
    var used = 0
    var start = text.endIndex
    while start > text.startIndex {
      let previous = text.index(before: start)
      let width = TerminalWidth.columns(of: text[previous])
      guard used + width <= columns else { break }
      used += width
      start = previous
    }
    return String(text[start...])
  }

  /// Words of `text` on lines of at most `width` columns; a word longer than a line is cut
  /// across lines, so nothing is lost.
  static func wrap(_ text: String, width: Int) -> [String] {
    let width = max(width, 1)
    var lines: [String] = []
    var line = ""
    var lineColumns = 0
    for word in text.split(separator: " ") {
      let columns = TerminalWidth.columns(of: word)
      if !line.isEmpty && lineColumns + 1 + columns <= width {
        line += " " + word
        lineColumns += 1 + columns
        continue
      }
      if !line.isEmpty { lines.append(line) }
      line = ""
      lineColumns = 0
      for character in word {
        let characterColumns = TerminalWidth.columns(of: character)
        if lineColumns + characterColumns > width && !line.isEmpty {
          lines.append(line)
          line = ""
          lineColumns = 0
        }
        line.append(character)
        lineColumns += characterColumns
      }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
  }
}
