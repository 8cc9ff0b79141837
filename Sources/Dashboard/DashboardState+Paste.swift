import ArchivedValues

/// Pastes: text pasted into the terminal reaches the field being edited in one step.
extension DashboardState {
  /// Puts pasted text into the field being edited, in one step. Outside a text field a paste
  /// does nothing (it is never read as keys: a pasted `Dy` must not clear a directory).
  mutating func paste(_ text: String) -> [DashboardEffect] {
    guard let overlay else {
      report("paste ignored: no text field is open (p, /, : or r open one)", isError: true)
      return []
    }
    do throws(TextField.PasteError) {
      switch overlay {
      case .pass(var form):
        guard try form.paste(text) else {
          report("paste ignored: move to the identifier or the value first (Tab)", isError: true)
          return []
        }
        self.overlay = .pass(form)
      case .replay(var form):
        guard try form.paste(text) else {
          report("paste ignored: move to the identifier first (Tab)", isError: true)
          return []
        }
        self.overlay = .replay(form)
      case .command(var field):
        try field.paste(text)
        self.overlay = .command(field)
      case .filter(var field, let pane):
        try field.paste(text)
        self.overlay = .filter(field, pane: pane)
        setFilter(field.text.isEmpty ? nil : PaneFilter(field.text), pane: pane)
      case .help, .messages, .confirm:
        report("paste ignored: no text field is open", isError: true)
      }
    } catch {
      switch error {
      case .tooLarge(let pasted, let resulting):
        report(
          "paste refused: \(Formatting.size(pasted)) (\(pasted) bytes) would make the field \(resulting) bytes, over the \(TextField.capacity) bytes (4 MiB) a field holds; nothing was inserted",
          isError: true)
      }
    }
    return []
  }
}
