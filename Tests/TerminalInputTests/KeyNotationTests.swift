import Testing

@testable import TerminalInput

@Suite struct KeyNotationTests {
  @Test func readsTheIssueExample() throws {
    let keys = try KeyNotation.keys(from: "jj<Enter><C-d><Esc>:q<Enter>")
    #expect(
      keys == [
        .character("j"), .character("j"), .enter, .control("d"), .escape, .character(":"), .character("q"),
        .enter,
      ])
  }

  /// Every key the backend can report, printed and read back.
  static let everyKind: [Key] =
    [
      .character("a"), .character("Z"), .character("<"), .character(">"), .character(" "),
      .character("漢"), .character("é"), .character("👍🏽"), .enter, .escape, .tab, .backTab, .up, .down,
      .left, .right, .pageUp, .pageDown, .home, .end, .insert, .delete, .backspace, .function(1),
      .function(12), .function(63), .control("a"), .control("d"), .control("u"), .control("z"),
      .control("@"), .control("\\"), .control("]"), .control("^"), .control("_"),
    ]

  @Test(arguments: everyKind) func printsWhatItReadsBack(key: Key) throws {
    let text = KeyNotation.text(for: key)
    #expect(try KeyNotation.keys(from: text) == [key], "\(text)")
  }

  @Test func printsASequenceInCanonicalNames() throws {
    #expect(KeyNotation.text(for: Self.everyKind).hasPrefix("aZ<lt>><Space>漢é👍🏽<Enter><Esc><Tab><S-Tab><Up>"))
    #expect(try KeyNotation.keys(from: KeyNotation.text(for: Self.everyKind)) == Self.everyKind)
    #expect(KeyNotation.text(for: [.pageUp, .pageDown, .delete, .backspace]) == "<PgUp><PgDn><Del><BS>")
  }

  @Test func readsAliasesWhateverTheirCase() throws {
    let keys = try KeyNotation.keys(
      from: "<CR><return><ESCAPE><pageup><PageDown><Delete><backspace><c-D><C-U><f5><BackTab><space><LT>")
    #expect(
      keys == [
        .enter, .enter, .escape, .pageUp, .pageDown, .delete, .backspace, .control("d"), .control("u"),
        .function(5), .backTab, .character(" "), .character("<"),
      ])
  }

  @Test func foldsControlKeysTerminalsCannotTellApart() throws {
    #expect(try KeyNotation.keys(from: "<C-i><C-m><C-h><C-[>") == [.tab, .enter, .backspace, .escape])
  }

  @Test func aLoneClosingBracketIsACharacter() throws {
    #expect(try KeyNotation.keys(from: "a>b") == [.character("a"), .character(">"), .character("b")])
    #expect(try KeyNotation.keys(from: "") == [])
  }

  @Test func refusesUnknownNamesSayingWhatToWrite() {
    #expect(throws: KeyNotationError.unknownName("Foo")) { try KeyNotation.keys(from: "j<Foo>") }
    #expect(throws: KeyNotationError.unknownName("F64")) { try KeyNotation.keys(from: "<F64>") }
    #expect(throws: KeyNotationError.unknownName("C-1")) { try KeyNotation.keys(from: "<C-1>") }
    #expect(throws: KeyNotationError.unknownName("")) { try KeyNotation.keys(from: "<>") }
    #expect(KeyNotationError.unknownName("Foo").description.contains("<lt> for a literal '<'"))
  }

  @Test func refusesAnUnclosedBracket() {
    #expect(throws: KeyNotationError.unclosed("<Enter")) { try KeyNotation.keys(from: "jj<Enter") }
    #expect(KeyNotationError.unclosed("<Enter").description.contains("no closing '>'"))
  }
}
