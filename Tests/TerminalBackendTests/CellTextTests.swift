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
  }

  @Test func aClusterLongerThanNcursesHoldsKeepsItsFirstScalar() {
    // A family of four: seven scalars.
    #expect(Terminal.wideCharacters(of: "👨‍👩‍👧‍👦") == [0x1F468, 0])
  }
}
