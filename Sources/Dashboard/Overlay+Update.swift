import TerminalInput
import TerminalScreen

/// Each overlay's own update: keys and pastes in, the overlay that stays and what it asks of
/// the dashboard out. Pure: the message log and the screen's size are inputs.
extension Overlay {
  /// Applies `key` to the overlay. Ctrl-C and Ctrl-L are the dashboard's, before this.
  public func update(_ key: Key, messageLog: MessageLog, size: Rect) -> OverlayStep {
    switch self {
    case .help(let scroll):
      switch key {
      case .down, .character("j"): return OverlayStep(.help(scroll: scroll + 1))
      case .up, .character("k"): return OverlayStep(.help(scroll: max(scroll - 1, 0)))
      case .pageDown, .control("d"): return OverlayStep(.help(scroll: scroll + 10))
      case .pageUp, .control("u"): return OverlayStep(.help(scroll: max(scroll - 10, 0)))
      default: return OverlayStep(nil)
      }
    case .messages(let scroll):
      // Scrolled up from the newest message: up moves back in time.
      let box = OverlayView.messagesBox(in: size)
      let rows = messageLog.rows(width: OverlayView.messagesTextWidth(of: box)).count
      let limit = max(rows - OverlayView.messagesVisibleRows(of: box), 0)
      let page = max(OverlayView.messagesVisibleRows(of: box) - 1, 1)
      var target = scroll
      switch key {
      case .up, .character("k"): target += 1
      case .down, .character("j"): target -= 1
      case .pageUp, .control("u"): target += page
      case .pageDown, .control("d"): target -= page
      case .home, .character("g"): target = limit
      case .end, .character("G"): target = 0
      default: return OverlayStep(nil)
      }
      return OverlayStep(.messages(scroll: min(max(target, 0), limit)))
    case .confirm(let confirmation):
      switch key {
      case .character("y"), .character("Y"), .enter:
        return OverlayStep(nil, .effect(confirmation.effect))
      case .character("n"), .character("N"), .escape, .character("q"):
        return OverlayStep(nil, .report("cancelled", isError: false))
      default: return OverlayStep(self)
      }
    case .pass(let form):
      if key == .escape { return OverlayStep(nil) }
      return Self.step(form, key, Overlay.pass)
    case .replay(let form):
      if key == .escape { return OverlayStep(nil, .report("replay cancelled", isError: false)) }
      return Self.step(form, key, Overlay.replay)
    case .route(let form):
      if key == .escape {
        return OverlayStep(
          nil, .report("\(form.replayOf == nil ? "push" : "replay") cancelled", isError: false))
      }
      return Self.step(form, key, Overlay.route)
    case .command(var field):
      switch key {
      case .escape: return OverlayStep(nil)
      case .enter: return OverlayStep(nil, .command(field.text))
      default:
        field.handle(key)
        return OverlayStep(.command(field))
      }
    case .filter(var field, let pane):
      switch key {
      case .escape: return OverlayStep(nil, .filter("", pane: pane))
      case .enter: return OverlayStep(nil)
      default:
        let before = field.text
        field.handle(key)
        return OverlayStep(
          .filter(field, pane: pane), field.text != before ? .filter(field.text, pane: pane) : nil)
      }
    }
  }

  /// Puts pasted text into the field being edited, in one step. Outside a text field a paste
  /// does nothing (it is never read as keys: a pasted `Dy` must not clear a directory).
  public func paste(_ text: String) throws(TextField.PasteError) -> OverlayStep {
    switch self {
    case .pass(let form): return try pasting(text, into: form, Overlay.pass)
    case .replay(let form): return try pasting(text, into: form, Overlay.replay)
    case .route(let form): return try pasting(text, into: form, Overlay.route)
    case .command(var field):
      try field.paste(text)
      return OverlayStep(.command(field))
    case .filter(var field, let pane):
      try field.paste(text)
      return OverlayStep(.filter(field, pane: pane), .filter(field.text, pane: pane))
    case .help, .messages, .confirm:
      return OverlayStep(self, .report("paste ignored: no text field is open", isError: true))
    }
  }

  /// A form's step for `key`: the form, shown as `overlay`, until Enter sends it.
  private static func step<Form: FieldForm>(_ form: Form, _ key: Key, _ overlay: (Form) -> Overlay)
    -> OverlayStep
  {
    var form = form
    let (effect, done) = form.handle(key)
    return OverlayStep(done ? nil : overlay(form), effect.map(OverlayStep.Request.effect))
  }

  /// `text` pasted into the form's focused text field, the form shown as `overlay`; outside its
  /// text fields the paste is ignored, and the report says where to move.
  private func pasting<Form: FieldForm>(_ text: String, into form: Form, _ overlay: (Form) -> Overlay)
    throws(TextField.PasteError) -> OverlayStep
  {
    var form = form
    guard try form.paste(text) else {
      return OverlayStep(
        self, .report("paste ignored: move to \(Form.pasteFields) first (Tab)", isError: true))
    }
    return OverlayStep(overlay(form))
  }
}
