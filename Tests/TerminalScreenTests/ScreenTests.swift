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

@Suite struct ScreenWideCharacterTests {
  static let samples = [
    "abc", "日本語", "한국", "ＡＢ", "👍🏽", "👨‍👩‍👧‍👦", "🇫🇷", "1️⃣", "©", "©️", "e\u{301}", "\u{301}", "\u{200D}",
    "\u{7}x\u{1B}[31m", "\r\n", "a\u{0}b", "🏳️‍🌈z", "x日", "",
  ]

  /// Every row keeps one cell per column; a continuation only follows the head of a wide
  /// character, and every wide head is followed by its continuation; no control character is
  /// ever stored.
  func expectWellFormed(_ screen: Screen, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(screen.cells.count == screen.width * screen.height, sourceLocation: sourceLocation)
    for row in 0..<screen.height {
      for column in 0..<screen.width {
        let cell = screen[row, column]
        if cell.isContinuation {
          let head = column > 0 ? screen[row, column - 1] : nil
          #expect(
            head.map { !$0.isContinuation && TerminalWidth.columns(of: $0.text) == 2 } == true,
            "row \(row) column \(column): continuation without a wide head", sourceLocation: sourceLocation)
        } else {
          #expect(!cell.text.contains { TerminalWidth.isControl($0) }, sourceLocation: sourceLocation)
          if TerminalWidth.columns(of: cell.text) == 2 {
            #expect(
              column + 1 < screen.width && screen[row, column + 1].isContinuation,
              "row \(row) column \(column): wide head without continuation", sourceLocation: sourceLocation)
          }
        }
      }
    }
  }

  @Test func anyWritesKeepEveryRowWellFormed() {
    // A deterministic generator, so a failure reproduces.
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    for _ in 0..<200 {
      var screen = Screen(width: 1 + next(9), height: 2)
      for _ in 0..<12 {
        let text = (0..<(1 + next(3))).map { _ in Self.samples[next(Self.samples.count)] }.joined()
        switch next(3) {
        case 0:
          screen.fill(
            Rect(x: next(10) - 1, y: 0, width: next(4), height: 2), role: "f")
        default:
          screen.write(text, row: next(2), column: next(12) - 2, limit: next(12), role: "w")
        }
        expectWellFormed(screen)
      }
    }
  }

  @Test(arguments: samples)
  func writingTakesTheColumnsTheWidthFunctionCounts(sample: String) {
    var screen = Screen(width: 40, height: 1)
    let used = screen.write(sample + "|", row: 0, column: 0, role: "x")
    #expect(used == TerminalWidth.columns(of: sample) + 1)
    // The marker lands in the column the width function predicts.
    #expect(screen[0, used - 1].text == "|")
    expectWellFormed(screen)
  }

  @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
    var screen = Screen(width: 6, height: 1)
    screen.write("日本語", row: 0, column: 0, role: "x")
    screen.write("a", row: 0, column: 1, role: "y")
    #expect(screen.text(ofRow: 0) == " a本語")
    screen.write("b", row: 0, column: 2, role: "y")
    #expect(screen.text(ofRow: 0) == " ab 語")
    expectWellFormed(screen)
  }

  @Test func controlCharactersAreDroppedAndMarksJoinTheWideCharacterBefore() {
    var screen = Screen(width: 6, height: 1)
    let used = screen.write("日\u{302}\u{7}a\u{1B}", row: 0, column: 0, role: "x")
    #expect(used == 3)
    #expect(screen[0, 0].text == "日\u{302}")
    #expect(screen.text(ofRow: 0) == "日\u{302}a   ")
  }

  @Test func aWideCharacterStartingLeftOfTheScreenLeavesABlank() {
    var screen = Screen(width: 4, height: 1, fill: Cell("."))
    screen.write("日a", row: 0, column: -1, role: "x")
    #expect(screen.text(ofRow: 0) == " a..")
    expectWellFormed(screen)
  }
}

@Suite struct SnapshotTextTests {
  @Test func quotedLinesThenRunsByRole() {
    var screen = Screen(width: 6, height: 2)
    screen.write("日本", row: 0, column: 0, role: "title")
    screen.write("ok", row: 1, column: 2, role: "list.selected")
    #expect(
      screen.snapshotText == """
        "日本  "
        "  ok  "

        0:0-3 title
        1:2-3 list.selected

        """)
  }
}

@Suite struct SnapshotTextEscapingTests {
  @Test func aControlCharacterSetDirectlyStaysOnItsLine() {
    var screen = Screen(width: 2, height: 1)
    screen[0, 0] = Cell("\n")
    screen[0, 1] = Cell("\u{1B}", role: "x")
    #expect(screen.snapshotText == "\"\\u{A}\\u{1B}\"\n\n0:1-1 x\n")
  }
}
