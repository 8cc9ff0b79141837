import Dashboard
import Testing

/// The contents pane on its own: line counts and lines in, no model or dashboard.
@Suite struct ContentsPaneStateTests {
  @Test func theCursorIsClampedToTheLinesAndScrollsThemIntoView() {
    var pane = ContentsPaneState()
    pane.update(.moveCursor(to: 50, lineCount: 10, visibleRows: 4))
    #expect(pane.cursor == 9)
    #expect(pane.scroll == 6)
    pane.update(.moveCursor(to: 2, lineCount: 10, visibleRows: 4))
    #expect(pane.cursor == 2)
    #expect(pane.scroll == 2)
    // Fewer lines than before (another value): the cursor and scroll come back within them.
    pane.update(.moveCursor(to: 9, lineCount: 10, visibleRows: 4))
    pane.update(.clamp(lineCount: 3, visibleRows: 4))
    #expect(pane.cursor == 2)
    #expect(pane.scroll == 0)
    pane.update(.moveCursor(to: -5, lineCount: 0, visibleRows: 4))
    #expect(pane.cursor == 0)
  }

  @Test func theHistoryViewKeepsItsVersionAcrossViews() {
    var pane = ContentsPaneState()
    for _ in 0..<3 { pane.update(.nextView) }
    #expect(pane.view == .history)
    pane.update(.moveCursor(to: 4, lineCount: 6, visibleRows: 10))
    #expect(pane.historyCursor == 4)
    pane.update(.nextView)
    #expect(pane.view == .diff)
    #expect(pane.cursor == 0)
    pane.update(.moveCursor(to: 1, lineCount: 6, visibleRows: 10))
    #expect(pane.historyCursor == 4)
    for _ in 0..<4 { pane.update(.nextView) }
    #expect(pane.view == .history)
    #expect(pane.cursor == 4)
  }

  @Test func aBranchUnderTheCursorFoldsAndUnfoldsAndOtherLinesDoNothing() {
    var branch = ContentLine([.init("items", "contents")], path: "root.items")
    branch.isBranch = true
    let leaf = ContentLine([.init("count: 3", "contents")], path: "root.count")
    var pane = ContentsPaneState()
    pane.update(.toggleBranch(lines: [branch, leaf]))
    #expect(pane.collapsedPaths == ["root.items"])
    pane.update(.moveCursor(to: 1, lineCount: 2, visibleRows: 10))
    pane.update(.toggleBranch(lines: [branch, leaf]))
    #expect(pane.collapsedPaths == ["root.items"])
    pane.update(.moveCursor(to: 0, lineCount: 2, visibleRows: 10))
    pane.update(.toggleBranch(lines: [branch, leaf]))
    #expect(pane.collapsedPaths.isEmpty)
  }

  @Test func aMarkTogglesAndAResetForgetsEverythingButTheView() {
    var pane = ContentsPaneState()
    pane.update(.nextView)
    pane.update(.toggleMark(serial: 7))
    #expect(pane.markedSerial == 7)
    pane.update(.toggleMark(serial: 8))
    #expect(pane.markedSerial == 8)
    pane.update(.toggleMark(serial: 8))
    #expect(pane.markedSerial == nil)
    pane.update(.toggleMark(serial: 8))
    pane.update(.moveCursor(to: 3, lineCount: 10, visibleRows: 2))
    pane.update(.reset)
    #expect(pane.markedSerial == nil)
    #expect(pane.cursor == 0)
    #expect(pane.scroll == 0)
    #expect(pane.historyCursor == 0)
    #expect(pane.view == .json)
  }
}
