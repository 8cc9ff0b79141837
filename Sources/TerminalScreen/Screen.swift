/// A rectangle of styled cells: what one frame of the dashboard shows, as a value.
///
/// Views draw into a `Screen`; the terminal backend flushes what differs from the previous
/// frame (``changes(since:)``); tests compare screens or their ``snapshotText``.
public struct Screen: Sendable, Hashable {
  public let width: Int
  public let height: Int
  /// Row-major, `width * height` cells.
  public private(set) var cells: [Cell]

  /// A blank screen of `width` by `height` cells (negative sizes count as 0).
  public init(width: Int, height: Int, fill: Cell = .blank) {
    self.width = max(width, 0)
    self.height = max(height, 0)
    cells = Array(repeating: fill, count: self.width * self.height)
  }

  public subscript(row: Int, column: Int) -> Cell {
    get { cells[row * width + column] }
    set { cells[row * width + column] = newValue }
  }

  /// The whole area.
  public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

  /// Paints every cell of `area` (clipped to the screen) blank with `role`. A wide character cut
  /// by the edge of `area` loses its other half to a blank, so no row is left with half of one.
  public mutating func fill(_ area: Rect, role: StyleRole, text: String = " ") {
    let area = area.intersection(bounds)
    guard !area.isEmpty else { return }
    for row in area.y..<(area.y + area.height) {
      for column in area.x..<(area.x + area.width) { place(Cell(text, role: role), row: row, column: column) }
    }
  }

  /// Writes `text` on `row` from `column`, at most `limit` columns (and never past the right
  /// edge), one grapheme cluster per cell, two cells for a wide one. A wide character that does
  /// not fit whole is replaced by a blank; a wide character already on the row that the text
  /// half covers is blanked. A cluster of zero width (a combining mark with nothing to combine
  /// with) joins the character before it; control characters are dropped. Nothing is escaped
  /// here: pass text from disk through `DisplayText` first. Returns the number of columns
  /// written.
  @discardableResult
  public mutating func write(
    _ text: some StringProtocol, row: Int, column: Int, limit: Int = .max, role: StyleRole
  ) -> Int {
    guard row >= 0, row < height, column < width, limit > 0 else { return 0 }
    let end = column + min(limit, width - column)
    var x = column
    for character in text {
      guard x < end else { break }
      let columns = TerminalWidth.columns(of: character)
      if columns == 0 {
        guard !TerminalWidth.isControl(character), x > column, x > 0 else { continue }
        var head = x - 1
        if self[row, head].isContinuation, head > 0 { head -= 1 }
        if !self[row, head].isContinuation { self[row, head].text.append(character) }
        continue
      }
      if x + columns > end {
        if x >= 0 { place(Cell(" ", role: role), row: row, column: x) }
        x += 1
        break
      }
      if x >= 0 {
        place(Cell(String(character), role: role), row: row, column: x)
        if columns == 2 { place(.continuation(role), row: row, column: x + 1) }
      } else if columns == 2, x + 1 == 0 {
        // The right half of a character that starts left of the screen: a blank.
        place(Cell(" ", role: role), row: row, column: 0)
      }
      x += columns
    }
    return x - column
  }

  /// Puts `cell` at (`row`, `column`), blanking the other half of a wide character it splits.
  private mutating func place(_ cell: Cell, row: Int, column: Int) {
    let old = self[row, column]
    if old.isContinuation && !cell.isContinuation && column > 0 {
      self[row, column - 1] = Cell(" ", role: self[row, column - 1].role)
    }
    if !old.isContinuation && column + 1 < width && self[row, column + 1].isContinuation {
      self[row, column + 1] = Cell(" ", role: self[row, column + 1].role)
    }
    self[row, column] = cell
  }

  /// Paints the role of the cells of `area` with `role`, keeping their text (a selection bar).
  public mutating func paint(_ area: Rect, role: StyleRole) {
    let area = area.intersection(bounds)
    guard !area.isEmpty else { return }
    for row in area.y..<(area.y + area.height) {
      for column in area.x..<(area.x + area.width) { self[row, column].role = role }
    }
  }

  /// The text of one row, continuation cells skipped.
  public func text(ofRow row: Int) -> String {
    var line = ""
    for column in 0..<width { line += self[row, column].text }
    return line
  }

  /// The whole screen as text, one line per row, trailing blanks kept.
  public var lines: [String] { (0..<height).map { text(ofRow: $0) } }
}
