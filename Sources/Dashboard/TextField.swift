import TerminalInput

/// A one-line text input: the form fields, the command line and the filter line.
public struct TextField: Sendable, Hashable {
  public var text: String
  /// The cursor, in characters from the start.
  public var cursor: Int

  public init(_ text: String = "") {
    self.text = text
    cursor = text.count
  }

  /// Applies an editing key; returns whether the key was an edit.
  @discardableResult
  public mutating func handle(_ key: Key) -> Bool {
    switch key {
    case .character(let character):
      let index = text.index(text.startIndex, offsetBy: min(cursor, text.count))
      text.insert(character, at: index)
      cursor += 1
    case .backspace:
      guard cursor > 0 else { return true }
      let index = text.index(text.startIndex, offsetBy: cursor - 1)
      text.remove(at: index)
      cursor -= 1
    case .delete:
      guard cursor < text.count else { return true }
      text.remove(at: text.index(text.startIndex, offsetBy: cursor))
    case .left: cursor = max(cursor - 1, 0)
    case .right: cursor = min(cursor + 1, text.count)
    case .home, .control("a"): cursor = 0
    case .end, .control("e"): cursor = text.count
    case .control("u"):
      text = ""
      cursor = 0
    case .control("w"):
      let head = text.prefix(cursor)
      let trimmed = head.reversed().drop(while: { $0 == " " }).drop(while: { $0 != " " })
      let kept = String(trimmed.reversed())
      text = kept + text.dropFirst(cursor)
      cursor = kept.count
    default: return false
    }
    return true
  }
}
