import Testing

@testable import TerminalBackend

/// What one cell hands to ncurses' `setcchar`.
@Suite struct CellTextTests {
  @Test func scalarsEndInZero() {
    #expect(Terminal.wideCharacters(of: "a") == [0x61, 0])
    #expect(Terminal.wideCharacters(of: "漢") == [0x6F22, 0])
    #expect(Terminal.wideCharacters(of: "e\u{301}") == [0x65, 0x301, 0])
    #expect(Terminal.wideCharacters(of: "") == [0x20, 0])
  }

  @Test func controlCharactersNeverReachTheTerminal() {
    #expect(Terminal.wideCharacters(of: "\u{1B}") == [0xFFFD, 0])
    #expect(Terminal.wideCharacters(of: "\u{9B}") == [0xFFFD, 0])
    #expect(Terminal.wideCharacters(of: "\u{7F}") == [0xFFFD, 0])
    // Line and paragraph separators are control characters too (`TerminalWidth.isControl`).
    #expect(Terminal.wideCharacters(of: "\u{2028}") == [0xFFFD, 0])
    #expect(Terminal.wideCharacters(of: "a\u{2029}") == [0xFFFD, 0])
  }

  @Test func aClusterLongerThanNcursesHoldsKeepsItsFirstScalar() {
    // A family of four: seven scalars.
    #expect(Terminal.wideCharacters(of: "👨‍👩‍👧‍👦") == [0x1F468, 0])
  }
}

/// What the backend draws for clusters whose width terminals disagree on.
@Suite struct CellStandInTests {
  /// glibc 2.36's widths for the scalars used here (what ncurses and tmux 3.3a count).
  static func width(_ scalar: UInt32) -> Int {
    switch scalar {
    case 0x1F468, 0x1F44B, 0x1F3F4, 0x6F22, 0x1F600: 2
    case 0x1FAE8: -1
    case 0x200D, 0xFE0F, 0x301: 0
    default: 1
    }
  }

  static func drawn(_ text: String, _ columns: Int) -> [String] {
    CellText.drawn(text, columns: columns, width: width)
  }

  @Test func emojiSequencesBecomeAStandInOfExactlyTheirWidth() {
    #expect(Self.drawn("👨‍👩‍👧", 2) == ["👨"])
    #expect(Self.drawn("🏳️‍🌈", 2) == ["🏳", " "])
    #expect(Self.drawn("🇫🇷", 2) == ["F", "R"])
    #expect(Self.drawn("1️⃣", 2) == ["1", " "])
    #expect(Self.drawn("❤️", 2) == ["❤", " "])
    #expect(Self.drawn("👋🏽", 2) == ["👋"])
    #expect(Self.drawn("☝🏽", 2) == ["☝", " "])
    #expect(Self.drawn("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", 2) == ["🏴"])
  }

  @Test func otherClustersAreDrawnWholeWhenTheLibraryAgrees() {
    #expect(Self.drawn("a", 1) == ["a"])
    #expect(Self.drawn("漢", 2) == ["漢"])
    #expect(Self.drawn("😀", 2) == ["😀"])
    #expect(Self.drawn("e\u{301}", 1) == ["e\u{301}"])
  }

  @Test func aWidthTheLibraryDoesNotShareIsPaddedOrReplaced() {
    // Newer than the C library's tables: it would draw nothing or one column.
    #expect(Self.drawn("\u{1FAE8}", 2) == ["\u{FFFD}", " "])
    // Wide to the library, narrow to the table.
    #expect(Self.drawn("\u{1F468}", 1) == ["\u{FFFD}"])
    // A lone regional indicator is one column to both.
    #expect(Self.drawn("🇫", 1) == ["🇫"])
  }
}

/// A character with more combining marks than a cell holds keeps the first of them on screen.
@Suite struct CombiningMarkCellTests {
  @Test func aCharacterWithManyMarksKeepsAsManyAsACellHolds() {
    let zalgo = "a" + String(repeating: "\u{301}", count: 12)
    let drawn = Terminal.wideCharacters(of: zalgo)
    #expect(drawn == [0x61] + Array(repeating: 0x301, count: 4) + [0])
  }
}
