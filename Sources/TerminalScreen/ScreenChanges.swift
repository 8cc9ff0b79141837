/// A run of adjacent changed cells on one row: what a backend writes for one update.
public struct ScreenRun: Sendable, Hashable {
  public var row: Int
  public var column: Int
  public var cells: [Cell]

  public init(row: Int, column: Int, cells: [Cell]) {
    self.row = row
    self.column = column
    self.cells = cells
  }
}

extension Screen {
  /// The runs of cells that differ from `previous`, row by row, left to right; every cell when
  /// `previous` is `nil` or of another size. A run never starts on the right half of a wide
  /// character: the whole character is rewritten.
  public func changes(since previous: Screen?) -> [ScreenRun] {
    let full = previous.map { $0.width != width || $0.height != height } ?? true
    var runs: [ScreenRun] = []
    for row in 0..<height {
      var column = 0
      while column < width {
        if !full, let previous, previous[row, column] == self[row, column] {
          column += 1
          continue
        }
        var start = column
        if start > 0 && self[row, start].isContinuation { start -= 1 }
        var end = column + 1
        while end < width && (full || previous?[row, end] != self[row, end] || self[row, end].isContinuation)
        {
          end += 1
        }
        // Merge with the previous run when it ended where this starts.
        if let last = runs.last, last.row == row, last.column + last.cells.count >= start {
          let from = last.column + last.cells.count
          runs[runs.count - 1].cells += (from..<end).map { self[row, $0] }
        } else {
          runs.append(ScreenRun(row: row, column: start, cells: (start..<end).map { self[row, $0] }))
        }
        column = end
      }
    }
    return runs
  }
}
