import TerminalScreen

/// What a terminal below the minimum size shows instead of garbled panes.
enum TooSmallView {
  static func draw(into screen: inout Screen, width: Int, height: Int) {
    screen.fill(screen.bounds, role: "too-small")
    let lines = [
      "terminal too small",
      "\(width)x\(height), needs \(DashboardLayout.minimumWidth)x\(DashboardLayout.minimumHeight)",
      "enlarge it, or q to quit",
    ]
    let top = max((height - lines.count) / 2, 0)
    for (index, line) in lines.enumerated() where top + index < height {
      let column = max((width - TerminalWidth.columns(of: line)) / 2, 0)
      screen.write(line, row: top + index, column: column, role: "too-small")
    }
  }
}
