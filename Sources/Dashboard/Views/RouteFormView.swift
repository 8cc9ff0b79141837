import ArchivedValues
import TerminalScreen

/// The route form, drawn over the panes: what it sends (a push or a deep link), to which
/// device of which pair, the payload or URL, and under them the rule, the size against the
/// limit and what a device will match, as typed.
enum RouteFormView {
  static func draw(_ form: RouteForm, state: DashboardState, into screen: inout Screen, area: Rect) {
    let width = min(area.width - 2, 100)
    let title = OverlayView.wrap(form.title, width: width - 4)
    let guidance = form.guidance.flatMap { OverlayView.wrap($0, width: width - 4) }
    let problem = form.problem.map { OverlayView.wrap(DisplayText.escaped($0), width: width - 4) } ?? []
    let fields = form.fields
    let box = area.centered(
      width: width, height: title.count + fields.count + guidance.count + max(problem.count, 1) + 6)
    OverlayView.frame(form.replayOf == nil ? "Push / open URL" : "Replay", box: box, into: &screen)
    var y = box.y + 1
    for line in title {
      screen.write(line, row: y, column: box.x + 2, limit: box.width - 4, role: "overlay")
      y += 1
    }
    for field in fields {
      let focused = form.focus == field
      let (fieldArea, role) = FormView.fieldArea(
        label(field, form), focused: focused, row: y, box: box, into: &screen)
      switch field {
      case .kind:
        screen.write(
          "◂ \(form.kind.rawValue) ▸", row: y, column: fieldArea.x, limit: fieldArea.width, role: role)
      case .pair:
        screen.write(form.deviceChoice, row: y, column: fieldArea.x, limit: fieldArea.width, role: role)
      case .role:
        let target =
          form.session.pair.map { DisplayText.field($0.name) + ":" + form.session.role.rawValue } ?? "-"
        screen.write(
          "◂ \(form.session.role.rawValue) ▸ (\(target))", row: y, column: fieldArea.x,
          limit: fieldArea.width,
          role: role)
      case .text:
        OverlayView.drawField(
          form.text, focused: focused, row: y, from: fieldArea.x, to: fieldArea.maxX, role: role,
          into: &screen)
      }
      y += 1
    }
    y += 1
    for line in guidance {
      screen.write(line, row: y, column: box.x + 2, limit: box.width - 4, role: "overlay.disabled")
      y += 1
    }
    if problem.isEmpty {
      screen.write(
        "valid: Enter sends it to the running device, which answers with the route taken", row: y,
        column: box.x + 2, limit: box.width - 4, role: "form")
    }
    for line in problem {
      screen.write(line, row: y, column: box.x + 2, limit: box.width - 4, role: "form.error")
      y += 1
    }
    screen.write(
      "Tab next field · ←/→ choose · Enter \(form.kind == .push ? "push" : "open") · Esc cancel",
      row: box.maxY - 2, column: box.x + 2, limit: box.width - 4, role: "overlay.disabled")
  }

  private static func label(_ field: RouteForm.Field, _ form: RouteForm) -> String {
    switch field {
    case .kind: return "send"
    case .pair: return form.deviceLabel
    case .role: return "to"
    case .text: return form.kind == .push ? "payload" : "URL"
    }
  }
}
