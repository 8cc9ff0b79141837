import Testing

@testable import TerminalScreen

@Suite struct TerminalWidthTests {
  func columns(_ text: String) -> [Int] { text.map { TerminalWidth.columns(of: $0) } }

  @Test func asciiTakesOneColumn() {
    #expect(columns("az09 ~") == [1, 1, 1, 1, 1, 1])
  }

  @Test func cjkHangulAndFullwidthFormsTakeTwo() {
    #expect(columns("日本語") == [2, 2, 2])
    #expect(columns("한국어") == [2, 2, 2])
    #expect(columns("ＡＢ！") == [2, 2, 2])  // fullwidth forms
    #expect(columns("ｱｲ") == [1, 1])  // halfwidth katakana
    #expect(columns("𠀋") == [2])  // CJK Extension B, plane 2
    // Hangul written as conjoining jamo: one cluster, as wide as its leading consonant.
    #expect(columns("\u{1100}\u{1161}\u{11A8}") == [2])
  }

  @Test func emojiPresentationAndSequencesTakeTwo() {
    #expect(columns("😀") == [2])
    #expect(columns("👍🏽") == [2])  // skin tone modifier
    #expect(columns("👨‍👩‍👧‍👦") == [2])  // ZWJ family
    #expect(columns("🏳️‍🌈") == [2])  // ZWJ sequence on a text-default base
    #expect(columns("🇫🇷🇯🇵") == [2, 2])  // flags
    #expect(columns("1️⃣#️⃣") == [2, 2])  // keycaps
    #expect(columns("❤️") == [2])
  }

  @Test func textPresentationSymbolsTakeOneUnlessSelectedAsEmoji() {
    #expect(columns("©") == [1])
    #expect(columns("©\u{FE0F}") == [2])
    #expect(columns("❤") == [1])
    #expect(columns("a\u{FE0F}") == [1])  // the selector means nothing after a letter
  }

  @Test func combiningMarksAndFormatCharactersTakeNone() {
    #expect(columns("e\u{301}") == [1])
    #expect(columns("\u{301}") == [0])  // a mark alone
    #expect(columns("\u{200D}") == [0])  // zero-width joiner alone
    #expect(columns("\u{200B}") == [0])
    #expect(columns("\u{FE0F}") == [0])
    #expect(columns("\u{E0100}") == [0])  // variation selector supplement
    #expect(columns("日\u{302}") == [2])
    #expect(columns("\u{AD}") == [1])  // soft hyphen: terminals draw it
  }

  @Test func controlCharactersTakeNoneAndDoNotCrash() {
    for value in Array(0x00...0x1F) + Array(0x7F...0x9F) + [0x2028, 0x2029] {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let character = Character(scalar)
      #expect(TerminalWidth.columns(of: character) == 0)
      #expect(TerminalWidth.isControl(character))
    }
    #expect(columns("\r\n") == [0])
    #expect(!TerminalWidth.isControl("a"))
  }

  @Test func theOneDefinitionOfAControlCharacter() {
    let controls = Set(Array(0x00...0x1F) + Array(0x7F...0x9F) + [0x2028, 0x2029])
    for value in 0...0x3000 {
      guard let scalar = Unicode.Scalar(value) else { continue }
      #expect(TerminalWidth.isControl(scalar: scalar) == controls.contains(value), "U+\(value)")
      #expect(TerminalWidth.isControl(Character(scalar)) == controls.contains(value))
    }
  }

  @Test func truncationAndPaddingCountColumns() {
    #expect(TerminalWidth.truncated("日本語です", toColumns: 5) == "日本…")
    #expect(TerminalWidth.padded("日本", toColumns: 6) == "日本  ")
    #expect(TerminalWidth.columns(of: TerminalWidth.padded("👨‍👩‍👧x", toColumns: 4)) == 4)
  }

  @Test func theTableIsSortedAndDisjointAndGivesNoneOrTwoColumns() {
    let entries = UnicodeWidthTables.widths.entries
    #expect(entries.count % 3 == 0)
    let ranges = stride(from: 0, to: entries.count - 2, by: 3).map {
      (first: entries[$0], last: entries[$0 + 1], columns: entries[$0 + 2])
    }
    #expect(ranges.allSatisfy { $0.first <= $0.last && ($0.columns == 0 || $0.columns == 2) })
    #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.last < $1.first })
  }

  /// A scalar both zero-width and East Asian Wide takes no column: the combining kana voiced
  /// marks (U+3099, U+309A) lie inside the wide range U+3099-30FF.
  @Test func aZeroWidthScalarInAWideRangeTakesNoColumn() throws {
    #expect(UnicodeWidthTables.widths.columns(of: 0x3099) == 0)
    #expect(UnicodeWidthTables.widths.columns(of: 0x309A) == 0)
    #expect(UnicodeWidthTables.widths.columns(of: 0x309B) == 2)
    #expect(TerminalWidth.columns(of: "\u{30AB}\u{3099}") == 2)
    #expect(UnicodeWidthTables.widths.columns(of: 0x41) == nil)
  }

  /// The tables must come from the Unicode version Swift uses: checked against the properties
  /// Swift reports, for every scalar of the planes that have any assigned (0-3 and 14).
  @Test func tablesAgreeWithSwiftsUnicodeProperties() throws {
    let parts = TerminalWidth.unicodeVersion.split(separator: ".").compactMap { Int($0) }
    let version = (major: parts.first ?? 0, minor: parts.dropFirst().first ?? 0)
    var mismatches: [String] = []
    var newer: [UInt32] = []
    for value in Array(UInt32(0)...0x3FFFF) + Array(0xE0000...0xEFFFF) {
      guard let scalar = Unicode.Scalar(value), let age = scalar.properties.age else { continue }
      guard (age.major, age.minor) <= (version.major, version.minor) else {
        newer.append(value)
        continue
      }
      let category = scalar.properties.generalCategory
      let zero = [.nonspacingMark, .enclosingMark, .format].contains(category) && value != 0xAD
      let columns = UnicodeWidthTables.widths.columns(of: value)
      if zero != (columns == 0) { mismatches.append("zero \(value)") }
      // Every emoji-presentation scalar is East Asian Wide, but the regional indicators, which
      // are wide in pairs (flags).
      if scalar.properties.isEmojiPresentation && !(0x1F1E6...0x1F1FF).contains(value)
        && columns != 2
      {
        mismatches.append("emoji \(value)")
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
    // A scalar Swift knows that is newer than the tables: regenerate them with
    // .ci/generate-width-tables.py for Swift's Unicode version.
    #expect(newer.isEmpty, "Swift knows scalars newer than the width tables, first \(newer.prefix(3))")
  }
}
