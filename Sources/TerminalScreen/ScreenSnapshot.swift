extension Screen {
  /// The screen as snapshot text: each row quoted on its own line (wide characters once, their
  /// continuation cells skipped, trailing blanks kept), a blank line, then one line per run of
  /// cells painted with a role other than ``StyleRole/plain``: `row:first-last role`, columns
  /// counted from 0 and both ends included (`3:0-11 list.selected`).
  ///
  /// Roles rather than colours, so a change of theme does not change every snapshot. A control
  /// character that reached a cell (``write(_:row:column:limit:role:)`` drops them, but a cell
  /// can be set directly) shows as `\u{1B}`, so each row stays one line.
  public var snapshotText: String {
    var out = ""
    for row in 0..<height {
      out += "\""
      for scalar in text(ofRow: row).unicodeScalars {
        if TerminalWidth.isControl(scalar: scalar) {
          out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
      out += "\"\n"
    }
    out += "\n"
    for run in roleRuns where run.role != .plain {
      out += "\(run.row):\(run.columns.lowerBound)-\(run.columns.upperBound) \(run.role)\n"
    }
    return out
  }

  /// Maximal runs of adjacent cells with the same role, row by row, left to right.
  var roleRuns: [(row: Int, columns: ClosedRange<Int>, role: StyleRole)] {
    var runs: [(row: Int, columns: ClosedRange<Int>, role: StyleRole)] = []
    for row in 0..<height {
      var start = 0
      while start < width {
        let role = self[row, start].role
        var end = start
        while end + 1 < width && self[row, end + 1].role == role { end += 1 }
        runs.append((row, start...end, role))
        start = end + 1
      }
    }
    return runs
  }
}
