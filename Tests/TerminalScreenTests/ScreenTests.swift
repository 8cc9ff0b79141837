import Testing

@testable import TerminalScreen

@Suite struct ScreenTests {
  @Test func writesOneClusterPerCellAndTwoForWide() {
    var screen = Screen(width: 8, height: 1)
    let used = screen.write("a日e\u{301}b", row: 0, column: 0, role: "x")
    #expect(used == 5)
    #expect(screen[0, 1].text == "日")
    #expect(screen[0, 2].isContinuation)
    #expect(screen[0, 3].text == "e\u{301}")
    #expect(screen.text(ofRow: 0) == "a日e\u{301}b   ")
  }

  @Test func aWideCharacterThatDoesNotFitBecomesABlank() {
    var screen = Screen(width: 3, height: 1)
    screen.write("ab日", row: 0, column: 0, role: "x")
    #expect(screen.text(ofRow: 0) == "ab ")
  }

  @Test func emojiSequencesTakeTwoColumns() {
    #expect(TerminalWidth.columns(of: "👍🏽" as Character) == 2)
    #expect(TerminalWidth.columns(of: "👨‍👩‍👧" as Character) == 2)
    #expect(TerminalWidth.columns(of: "🇫🇷" as Character) == 2)
    #expect(TerminalWidth.columns(of: "❤️" as Character) == 2)
    #expect(TerminalWidth.columns(of: "e\u{301}" as Character) == 1)
  }

  @Test func changesCoverOnlyDifferingCells() {
    var before = Screen(width: 10, height: 2)
    before.write("hello", row: 0, column: 0, role: "x")
    var after = before
    after.write("J", row: 1, column: 4, role: "y")
    let runs = after.changes(since: before)
    #expect(runs == [ScreenRun(row: 1, column: 4, cells: [Cell("J", role: "y")])])
    #expect(after.changes(since: nil).count == 2)
    #expect(after.changes(since: after).isEmpty)
  }

  @Test func aChangedWideCharacterIsRewrittenWhole() {
    var before = Screen(width: 4, height: 1)
    before.write("日本", row: 0, column: 0, role: "x")
    var after = before
    after[0, 1] = .continuation("y")
    let runs = after.changes(since: before)
    #expect(runs.first?.column == 0)
  }
}
