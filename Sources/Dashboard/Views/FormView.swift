import ArchivedValues
import TerminalScreen
import WormholeVocabulary

/// The pass and replay forms, drawn over the panes. With a session type the "where" rows are
/// the pair and its sending device, and a line under the fields says which device sends to
/// which and what the type means now (the pairs as the dashboard last read them).
enum FormView {
  static func drawPassForm(_ form: PassForm, state: DashboardState, into screen: inout Screen, area: Rect) {
    let width = formWidth(form.transiting, area: area)
    let meaning = form.sessionMeaning(pairs: state.pairs).flatMap { OverlayView.wrap($0, width: width - 4) }
    let fields = form.fields
    let box = area.centered(width: width, height: fields.count + meaning.count + 6)
    OverlayView.frame(form.title, box: box, into: &screen)
    for (index, field) in fields.enumerated() {
      let row = box.y + 1 + index
      let focused = form.focus == field
      switch field {
      case .directory:
        let directory =
          form.directory.map {
            // A bridged machine's path is that machine's: not shortened against this home.
            "◂ " + DisplayText.name(form.remote == nil ? state.displayPath($0) : $0.lossyText) + " ▸"
          } ?? "(none)"
        choice("directory", directory, focused: focused, row: row, box: box, into: &screen)
      case .identifier:
        textField("identifier", form.identifier, focused: focused, row: row, box: box, into: &screen)
      case .value:
        textField("value (JSON)", form.value, focused: focused, row: row, box: box, into: &screen)
      case .transiting:
        choice("transiting", "◂ \(form.transiting) ▸", focused: focused, row: row, box: box, into: &screen)
      case .pair, .role, .replyTimeout, .deliversIdentical:
        sessionField(SessionRow(field), form.session, focused: focused, row: row, box: box, into: &screen)
      }
    }
    var y = box.y + 2 + fields.count
    for line in meaning {
      screen.write(line, row: y, column: box.x + 2, limit: box.width - 4, role: "overlay.disabled")
      y += 1
    }
    let problem = form.problem.map(DisplayText.escaped)
    screen.write(
      problem ?? (form.value.text.isEmpty ? "empty value: a notification without a message" : "valid"),
      row: y, column: box.x + 2, limit: box.width - 4, role: problem == nil ? "form" : "form.error")
    screen.write(
      "Tab next field · ←/→ choose · Enter pass · Esc cancel", row: box.maxY - 2, column: box.x + 2,
      limit: box.width - 4, role: "overlay.disabled")
  }

  static func drawReplayForm(_ form: ReplayForm, state: DashboardState, into screen: inout Screen, area: Rect)
  {
    let width = formWidth(form.transiting, area: area)
    // The title and the note wrap, so what is replayed and why is read whole.
    let lines =
      OverlayView.wrap(form.title, width: width - 4).map { ($0, StyleRole("overlay")) }
      + (form.note.map { OverlayView.wrap($0, width: width - 4) } ?? []).map {
        ($0, StyleRole("overlay.disabled"))
      }
    let meaning = form.sessionMeaning(pairs: state.pairs).flatMap { OverlayView.wrap($0, width: width - 4) }
    let fields = form.fields
    // The meaning follows the fields after a blank row, as in the pass form.
    let meaningRows = meaning.isEmpty ? 0 : meaning.count + 1
    let box = area.centered(width: width, height: lines.count + fields.count + meaningRows + 5)
    OverlayView.frame("Replay", box: box, into: &screen)
    for (index, line) in lines.enumerated() {
      screen.write(line.0, row: box.y + 1 + index, column: box.x + 2, limit: box.width - 4, role: line.1)
    }
    var y = box.y + 1 + lines.count
    for field in fields {
      let focused = form.focus == field
      switch field {
      case .identifier:
        textField(
          form.transiting.isSession ? "identifier" : "to", form.identifier, focused: focused, row: y,
          box: box,
          into: &screen)
      case .transiting:
        choice("transiting", "◂ \(form.transiting) ▸", focused: focused, row: y, box: box, into: &screen)
      case .pair, .role, .replyTimeout, .deliversIdentical:
        sessionField(SessionRow(field), form.session, focused: focused, row: y, box: box, into: &screen)
      }
      y += 1
    }
    if !meaning.isEmpty { y += 1 }
    for line in meaning {
      screen.write(line, row: y, column: box.x + 2, limit: box.width - 4, role: "overlay.disabled")
      y += 1
    }
    if let problem = form.problem {
      screen.write(
        DisplayText.escaped(problem), row: y, column: box.x + 2, limit: box.width - 4, role: "form.error")
    }
    screen.write(
      "Enter replays · Tab next field · ←/→ choose · Esc cancel", row: box.maxY - 2, column: box.x + 2,
      limit: box.width - 4, role: "overlay.disabled")
  }

  /// A form's width: a session type says more (which device, what the type means now), so it
  /// takes up to 100 columns where the file types take 76.
  private static func formWidth(_ type: TransitingType, area: Rect) -> Int {
    min(area.width - 2, type.isSession ? 100 : 76)
  }

  /// The rows both forms share for a session type.
  private enum SessionRow {
    case pair, role, replyTimeout, deliversIdentical

    /// The row of `field`, one of the session fields of the pass or the replay form.
    init<Field: SessionFormField>(_ field: Field) {
      switch field {
      case .role: self = .role
      case .replyTimeout: self = .replyTimeout
      case .deliversIdentical: self = .deliversIdentical
      default: self = .pair
      }
    }
  }

  private static func sessionField(
    _ row: SessionRow, _ session: SessionFields, focused: Bool, row y: Int, box: Rect,
    into screen: inout Screen
  ) {
    switch row {
    case .pair:
      let pair = session.pair.map { "◂ " + DisplayText.field($0.name) + " ▸" } ?? "(no pair under the home)"
      choice("pair", pair, focused: focused, row: y, box: box, into: &screen)
    case .role:
      choice(
        "from", "◂ \(session.role.rawValue) ▸ to the \(session.receiver.rawValue)", focused: focused, row: y,
        box: box, into: &screen)
    case .replyTimeout:
      let (area, role) = fieldArea("reply timeout", focused: focused, row: y, box: box, into: &screen)
      if session.replyTimeout.text.isEmpty && !focused {
        screen.write(
          "none (seconds to wait for a reply)", row: y, column: area.x, limit: area.width, role: role)
      } else {
        OverlayView.drawField(
          session.replyTimeout, focused: focused, row: y, from: area.x, to: area.maxX, role: role,
          into: &screen)
      }
    case .deliversIdentical:
      choice(
        "identical",
        session.deliversIdentical ? "◂ deliver identical ▸" : "◂ not delivered again ▸", focused: focused,
        row: y, box: box, into: &screen)
    }
  }

  /// A chooser field (`◂ file ▸`).
  private static func choice(
    _ label: String, _ value: String, focused: Bool, row: Int, box: Rect, into screen: inout Screen
  ) {
    let (area, role) = fieldArea(label, focused: focused, row: row, box: box, into: &screen)
    screen.write(value, row: row, column: area.x, limit: area.width, role: role)
  }

  /// A text field: the text around the cursor, escaped, with the cursor shown when focused.
  private static func textField(
    _ label: String, _ field: TextField, focused: Bool, row: Int, box: Rect, into screen: inout Screen
  ) {
    let (area, role) = fieldArea(label, focused: focused, row: row, box: box, into: &screen)
    OverlayView.drawField(
      field, focused: focused, row: row, from: area.x, to: area.maxX, role: role, into: &screen)
  }

  /// Writes a form field's label and fills the field's area: the area and the role its value is
  /// drawn in. The route form's view draws its fields with it too.
  static func fieldArea(
    _ label: String, focused: Bool, row: Int, box: Rect, into screen: inout Screen
  ) -> (area: Rect, role: StyleRole) {
    screen.write(Formatting.padded(label, 13), row: row, column: box.x + 2, role: "form")
    let area = Rect(x: box.x + 16, y: row, width: box.width - 18, height: 1)
    let role: StyleRole = focused ? "form.field.focused" : "form.field"
    screen.fill(area, role: role)
    return (area, role)
  }
}

/// The fields of a form with session rows (the pass and the replay form): the rows after the
/// pair that ``FormView`` draws alike for both.
private protocol SessionFormField: Equatable {
  static var role: Self { get }
  static var replyTimeout: Self { get }
  static var deliversIdentical: Self { get }
}

extension PassForm.Field: SessionFormField {}
extension ReplayForm.Field: SessionFormField {}
