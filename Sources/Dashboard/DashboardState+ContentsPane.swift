import MailboxModel

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
    updateContents(.clamp(lineCount: refreshedContentsLines().count, visibleRows: contentsVisibleRows))
  }

  /// Puts the contents cursor on `row` (clamped).
  mutating func setContentsCursor(_ row: Int) {
    updateContents(
      .moveCursor(to: row, lineCount: refreshedContentsLines().count, visibleRows: contentsVisibleRows))
  }

  /// The contents pane's lines, built only when what they are built from changed
  /// (``ContentsLines/MemoKey``) and kept for the frames and keys that follow.
  @discardableResult
  mutating func refreshedContentsLines() -> [ContentLine] {
    let contents = self.contents
    guard let key = contents.memoKey else {
      contentsMemo = nil
      return contents.lines()
    }
    if let memo = contentsMemo, memo.key == key { return memo.lines }
    let lines = contents.lines()
    contentsMemo = ContentsLines.Memo(key: key, lines: lines)
    return lines
  }

  /// The contents pane's lines and what depends on them, for the state as it is now.
  var contents: ContentsLines {
    var contents = ContentsLines(
      model: model, decodedVersions: decodedVersions, memo: contentsMemo, selection: treePane.selection,
      contentsPane: contentsPane, presentCounts: treePane.presentCounts, width: width, height: height,
      now: now)
    contents.pairs = pairs
    contents.peers = peers
    contents.routeEntry = selectedRouteEntry
    contents.fleet = fleet
    return contents
  }

  /// The lines of the contents pane for the current selection and view.
  public func contentsLines() -> [ContentLine] { contents.lines() }

  /// The selected mailbox's versions, newest first (the current one first, when present).
  public var selectedVersions: [MailboxVersion] { contents.selectedVersions }

  /// The version `r` replays: the one under the history cursor in the history and diff views,
  /// else the newest one kept.
  public var versionToReplay: MailboxVersion? { contents.versionToReplay }

  /// Why the value of `version` cannot be copied as JSON, or `nil` when it can.
  func copyRefusal(for version: MailboxVersion) -> String? { contents.copyRefusal(for: version) }

  /// A numeric series across the selected mailbox's versions, oldest first: the field under the
  /// tree cursor when it is a number, else the whole value when it is one.
  public func sparklineSeries() -> (label: String, values: [Double])? { contents.sparklineSeries() }

  public var contentsView: ContentsView { contentsPane.view }
  public var contentsCursor: Int { contentsPane.cursor }
  public var contentsScroll: Int { contentsPane.scroll }
}
