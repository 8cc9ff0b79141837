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

  /// Paints every cell of `area` (clipped to the screen) blank with `role`.
  public mutating func fill(_ area: Rect, role: StyleRole, text: String = " ") {
    let area = area.intersection(bounds)
    guard !area.isEmpty else { return }
    for row in area.y..<(area.y + area.height) {
      for column in area.x..<(area.x + area.width) { self[row, column] = Cell(text, role: role) }
    }
  }

  /// Writes `text` on `row` from `column`, at most `limit` columns (and never past the right
  /// edge), one grapheme cluster per cell, two cells for a wide one. A wide character that does
  /// not fit whole is replaced by a blank. Nothing is escaped here: pass text from disk through
  /// `DisplayText` first. Returns the number of columns written.
  @discardableResult
  public mutating func write(
    _ text: some StringProtocol, row: Int, column: Int, limit: Int = .max, role: StyleRole
  ) -> Int {
    guard row >= 0, row < height, column < width else { return 0 }
    let end = column + min(limit, width - column)
    var x = column
    for character in text {
      guard x < end else { break }
      let columns = TerminalWidth.columns(of: character)
      if columns == 0 {
        // Combining marks with nothing to combine with here: attach to the previous cell.
        if x > column, x - 1 >= 0, !self[row, x - 1].isContinuation {
          self[row, x - 1].text.append(character)
        }
        continue
      }
      if x + columns > end {
        if x >= 0 { self[row, x] = Cell(" ", role: role) }
        x += 1
        break
      }
      if x >= 0 { self[row, x] = Cell(String(character), role: role) }
      if columns == 2, x + 1 >= 0 { self[row, x + 1] = .continuation(role) }
      x += columns
    }
    return x - column
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
