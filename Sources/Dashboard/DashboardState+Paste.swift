import ArchivedValues

/// Pastes: text pasted into the terminal reaches the field being edited in one step.
extension DashboardState {
  /// Puts pasted text into the field being edited, in one step (``Overlay/paste(_:)``). Outside
  /// a text field a paste does nothing (it is never read as keys: a pasted `Dy` must not clear a
  /// directory).
  mutating func paste(_ text: String) -> [DashboardEffect] {
    guard let overlay else {
      report("paste ignored: no text field is open (p, /, : or r open one)", isError: true)
      return []
    }
    do throws(TextField.PasteError) {
      return apply(try overlay.paste(text))
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
