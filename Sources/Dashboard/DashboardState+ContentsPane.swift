/// The contents pane inside the dashboard: its cursor moves over the lines built from the
/// selection (``contentsLines()``), in the rows the pane shows.
extension DashboardState {
  /// Rows the contents pane shows at the current size.
  var contentsVisibleRows: Int {
    max(DashboardLayout(width: width, height: height).bodyHeight(of: .contents), 1)
  }

  /// Applies `message` to the contents pane.
  mutating func updateContents(_ message: ContentsPaneState.Message) {
    contentsPane.update(message)
  }

  /// Keeps the cursor on a line and in view after the lines or the size changed.
  mutating func clampContents() {
    updateContents(.clamp(lineCount: contentsLines().count, visibleRows: contentsVisibleRows))
  }

  /// Puts the contents cursor on `row` (clamped).
  mutating func setContentsCursor(_ row: Int) {
    updateContents(.moveCursor(to: row, lineCount: contentsLines().count, visibleRows: contentsVisibleRows))
  }

  public var contentsView: ContentsView { contentsPane.view }
  public var contentsCursor: Int { contentsPane.cursor }
  public var contentsScroll: Int { contentsPane.scroll }
}
