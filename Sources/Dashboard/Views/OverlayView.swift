import KeyedArchive
import TerminalScreen

/// Boxes drawn over the panes: help, confirmations and forms.
enum OverlayView {
  static func draw(_ overlay: Overlay, state: DashboardState, into screen: inout Screen, area: Rect) {
    switch overlay {
    case .help(let scroll): drawHelp(state, scroll: scroll, into: &screen, area: area)
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
    case .pass(let form): drawPassForm(form, state: state, into: &screen, area: area)
    case .replay(let form): drawReplayForm(form, state: state, into: &screen, area: area)
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
    var rows: [(keys: String, help: String, disabled: Bool)] = []
    for binding in Keymap.bindings {
      let keys = binding.keys.map(Keymap.name(of:)).joined(separator: " ")
      var help = binding.help
      if !binding.panes.isEmpty {
        help += " (" + binding.panes.map(\.rawValue).sorted().joined(separator: ", ") + ")"
      }
      let disabled = binding.writes && state.isReadOnly
      if disabled { help += " — disabled: read-only" }
      rows.append((keys, help, disabled))
    }
    let box = area.centered(width: min(area.width - 2, 86), height: min(area.height - 2, rows.count + 3))
    frame("Keys (any other key closes)", box: box, into: &screen)
    let visible = max(box.height - 3, 0)
    let start = min(scroll, max(rows.count - visible, 0))
    for (offset, row) in rows.dropFirst(start).prefix(visible).enumerated() {
      let y = box.y + 1 + offset
      screen.write(
        Formatting.padded(row.keys, 14), row: y, column: box.x + 2,
        role: row.disabled ? "overlay.disabled" : "overlay.key")
      screen.write(
        row.help, row: y, column: box.x + 17, limit: box.width - 19,
        role: row.disabled ? "overlay.disabled" : "overlay")
    }
    screen.write(
      "\(start + 1)-\(min(start + visible, rows.count)) of \(rows.count)  j/k scroll", row: box.maxY - 2,
      column: box.x + 2, limit: box.width - 4, role: "overlay.disabled")
  }

  private static func field(
    _ label: String, _ value: String, focused: Bool, cursor: Int?, row: Int, box: Rect,
    into screen: inout Screen
  ) {
    screen.write(Formatting.padded(label, 13), row: row, column: box.x + 2, role: "form")
    let area = Rect(x: box.x + 16, y: row, width: box.width - 18, height: 1)
    screen.fill(area, role: focused ? "form.field.focused" : "form.field")
    // Show the end of long values, where the cursor is.
    let text = value
    let width = area.width - 1
    var shown = text
    if TerminalWidth.columns(of: shown) > width {
      shown = "…" + String(text.suffix(max(width - 1, 0)))
    }
    let used = screen.write(
      shown, row: row, column: area.x, limit: area.width, role: focused ? "form.field.focused" : "form.field")
    if focused, cursor != nil, area.x + used < area.maxX {
      screen[row, area.x + used] = Cell("█", role: "form.field.focused")
    }
  }

  private static func drawPassForm(
    _ form: PassForm, state: DashboardState, into screen: inout Screen, area: Rect
  ) {
    let box = area.centered(width: min(area.width - 2, 76), height: 10)
    frame("Pass a message", box: box, into: &screen)
    let directory =
      form.directory.map { "◂ " + DisplayText.name(state.displayPath($0)) + " ▸" } ?? "(none)"
    field(
      "directory", directory, focused: form.focus == .directory, cursor: nil, row: box.y + 1, box: box,
      into: &screen)
    field(
      "identifier", DisplayText.escaped(form.identifier.text), focused: form.focus == .identifier,
      cursor: form.identifier.cursor,
      row: box.y + 2, box: box, into: &screen)
    field(
      "value (JSON)", DisplayText.escaped(form.value.text), focused: form.focus == .value,
      cursor: form.value.cursor,
      row: box.y + 3, box: box, into: &screen)
    field(
      "transiting", "◂ " + form.transiting + " ▸", focused: form.focus == .transiting, cursor: nil,
      row: box.y + 4, box: box, into: &screen)
    let problem = form.problem.map(DisplayText.escaped)
    screen.write(
      problem ?? (form.value.text.isEmpty ? "empty value: a notification without a message" : "valid"),
      row: box.y + 6, column: box.x + 2, limit: box.width - 4, role: problem == nil ? "form" : "form.error")
    screen.write(
      "Tab next field · ←/→ choose · Enter pass · Esc cancel", row: box.y + 8, column: box.x + 2,
      limit: box.width - 4,
      role: "overlay.disabled")
  }

  private static func drawReplayForm(
    _ form: ReplayForm, state: DashboardState, into screen: inout Screen, area: Rect
  ) {
    let box = area.centered(width: min(area.width - 2, 76), height: 9)
    frame("Replay", box: box, into: &screen)
    screen.write(form.title, row: box.y + 1, column: box.x + 2, limit: box.width - 4, role: "overlay")
    field(
      "to", DisplayText.escaped(form.identifier.text), focused: form.focus == .identifier,
      cursor: form.identifier.cursor,
      row: box.y + 3, box: box, into: &screen)
    field(
      "transiting", "◂ " + form.transiting + " ▸", focused: form.focus == .transiting, cursor: nil,
      row: box.y + 4, box: box, into: &screen)
    if let problem = form.problem {
      screen.write(
        DisplayText.escaped(problem), row: box.y + 5, column: box.x + 2, limit: box.width - 4,
        role: "form.error")
    }
    screen.write(
      "Enter replays · Tab next field · Esc cancel", row: box.y + 7, column: box.x + 2, limit: box.width - 4,
      role: "overlay.disabled")
  }

  /// Words of `text` on lines of at most `width` columns.
  static func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      let candidate = line.isEmpty ? String(word) : line + " " + word
      if TerminalWidth.columns(of: candidate) > width && !line.isEmpty {
        lines.append(line)
        line = String(word)
      } else {
        line = candidate
      }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
  }
}
