import TerminalInput

/// A one-line text input: the form fields, the command line and the filter line.
///
/// Every edit costs what it touches, not the length of the text: the cursor is kept as a UTF-8
/// offset (a native string reaches it in constant time), a paste is inserted in one step, and
/// ``window(scalars:)`` hands a view only the text around the cursor.
public struct TextField: Sendable, Hashable {
  /// The most a field holds, in UTF-8 bytes (4 MiB): four times the largest message the
  /// watcher keeps (1 MiB), so any value it shows can be pasted back, and small enough that a
  /// field never holds more than a frame can check. Longer pastes are refused whole.
  public static let capacity = 4 << 20

  public private(set) var text: String
  /// The cursor, in UTF-8 bytes from the start; always between two characters.
  public private(set) var cursorOffset: Int

  public init(_ text: String = "") {
    self.text = text
    cursorOffset = text.utf8.count
  }

  /// Why a paste was refused.
  public enum PasteError: Error, Sendable, Hashable {
    /// The field would hold `resulting` bytes, more than ``capacity``; `pasted` were pasted.
    case tooLarge(pasted: Int, resulting: Int)
  }

  private var cursorIndex: String.Index {
    text.utf8.index(text.utf8.startIndex, offsetBy: min(cursorOffset, text.utf8.count))
  }

  private func offset(of index: String.Index) -> Int {
    text.utf8.distance(from: text.utf8.startIndex, to: index)
  }

  /// Inserts `pasted` at the cursor in one step, or refuses it whole when the field would hold
  /// more than ``capacity`` bytes. A single line break at the end (a copied line's) is dropped.
  public mutating func paste(_ pasted: String) throws(PasteError) {
    var pasted = Substring(pasted)
    if pasted.last == "\n" || pasted.last == "\r" || pasted.last == "\r\n" { pasted = pasted.dropLast() }
    let resulting = text.utf8.count + pasted.utf8.count
    guard resulting <= Self.capacity else { throw .tooLarge(pasted: pasted.utf8.count, resulting: resulting) }
    insert(pasted)
  }

  private mutating func insert(_ inserted: some StringProtocol) {
    guard text.utf8.count + inserted.utf8.count <= Self.capacity else { return }
    text.insert(contentsOf: inserted, at: cursorIndex)
    cursorOffset += inserted.utf8.count
  }

  /// Applies an editing key; returns whether the key was an edit (or a cursor move).
  @discardableResult
  public mutating func handle(_ key: Key) -> Bool {
    switch key {
    case .character(let character):
      insert(String(character))
    case .backspace:
      let end = cursorIndex
      guard end > text.startIndex else { return true }
      let start = text.index(before: end)
      cursorOffset = offset(of: start)
      text.removeSubrange(start..<end)
    case .delete:
      let start = cursorIndex
      guard start < text.endIndex else { return true }
      text.removeSubrange(start..<text.index(after: start))
    case .left:
      let index = cursorIndex
      if index > text.startIndex { cursorOffset = offset(of: text.index(before: index)) }
    case .right:
      let index = cursorIndex
      if index < text.endIndex { cursorOffset = offset(of: text.index(after: index)) }
    case .home, .control("a"): cursorOffset = 0
    case .end, .control("e"): cursorOffset = text.utf8.count
    case .control("u"):
      text = ""
      cursorOffset = 0
    case .control("w"):
      let end = cursorIndex
      var start = end
      while start > text.startIndex, text[text.index(before: start)] == " " {
        start = text.index(before: start)
      }
      while start > text.startIndex, text[text.index(before: start)] != " " {
        start = text.index(before: start)
      }
      cursorOffset = offset(of: start)
      text.removeSubrange(start..<end)
    default: return false
    }
    return true
  }

  /// The text just before and just after the cursor, at most `scalars` Unicode scalars each
  /// way, and whether more text lies beyond either end: what a view of the field needs,
  /// whatever the field's length.
  public func window(scalars: Int) -> (
    before: Substring, after: Substring, clippedBefore: Bool, clippedAfter: Bool
  ) {
    let scalarsView = text.unicodeScalars
    let cursor = cursorIndex
    var start = cursor
    var count = 0
    while start > scalarsView.startIndex, count < scalars {
      start = scalarsView.index(before: start)
      count += 1
    }
    var end = cursor
    count = 0
    while end < scalarsView.endIndex, count < scalars {
      end = scalarsView.index(after: end)
      count += 1
    }
    return (
      Substring(scalarsView[start..<cursor]), Substring(scalarsView[cursor..<end]),
      start > scalarsView.startIndex,
      end < scalarsView.endIndex
    )
  }
}
