import CNcursesw
import Glibc

/// What the backend writes for one cell's grapheme cluster so that the terminal advances by
/// exactly the cell's columns, whatever its own idea of the cluster's width.
///
/// Terminals disagree on emoji sequences: tmux 3.3a draws `🏳️‍🌈` in 1 column, `👋🏽` in 4,
/// `❤️` and `1️⃣` in 1, where ``TerminalScreen/TerminalWidth`` (and most current terminals) give
/// 2; ncurses itself counts a cell by the C library's `wcwidth` of its first scalar. A
/// disagreement would shift the rest of the row and leave debris after the next frame. So:
/// - an emoji sequence (a ZWJ sequence, a flag, a keycap, a VS16 or skin-tone sequence, a tag
///   sequence) is drawn as a stand-in of exactly its cell width: its first scalar (`👨` for
///   `👨‍👩‍👧`, `👋` for `👋🏽`), padded with a blank when that scalar is narrow (`❤ `, `1 `), and a
///   flag as its two letters (`FR` for `🇫🇷`);
/// - any other cluster is drawn whole when `wcwidth` of its first scalar is the cell width, as a
///   narrow character and a blank when it is 1 for a wide cell, and otherwise (a character the
///   C library does not know, or wide where the table says narrow) as U+FFFD padded to the width.
///
/// `snapshot` and the views keep the clusters themselves: only what reaches a terminal changes.
enum CellText {
  /// The texts to write from the cell's column on, one per column that starts a character:
  /// `[text]` when the cluster is drawn whole, two when a narrow stand-in is padded.
  static func drawn(_ text: String, columns: Int, width: (UInt32) -> Int = Self.libraryWidth) -> [String] {
    // One printable ASCII character, the common case: no lookup.
    if columns == 1, text.utf8.count == 1, let byte = text.utf8.first, byte >= 0x20, byte < 0x7F {
      return [text]
    }
    let scalars = Array(text.unicodeScalars)
    guard let first = scalars.first else { return Array(repeating: " ", count: max(columns, 1)) }
    if scalars.count == 2, columns == 2, let flag = flagLetters(scalars[0], scalars[1]) { return flag }
    let whole = scalars.count == 1 || !isEmojiSequence(scalars)
    let base = whole ? text : String(Character(first))
    switch (width(first.value), columns) {
    case (columns, _): return [base]
    case (1, 2): return [base, " "]
    case (_, 2): return ["\u{FFFD}", " "]
    default: return ["\u{FFFD}"]
    }
  }

  /// Whether a cluster of several scalars is one of the emoji sequences terminals size
  /// differently: it holds a variation selector 16, a zero-width joiner, a keycap, a skin-tone
  /// modifier, tag characters or regional indicators.
  static func isEmojiSequence(_ scalars: [Unicode.Scalar]) -> Bool {
    scalars.contains { scalar in
      switch scalar.value {
      case 0xFE0F, 0x200D, 0x20E3, 0x1F3FB...0x1F3FF, 0xE0020...0xE007F, 0x1F1E6...0x1F1FF: true
      default: false
      }
    }
  }

  /// `FR` for the regional indicators of `🇫🇷`, nil for anything else.
  static func flagLetters(_ first: Unicode.Scalar, _ second: Unicode.Scalar) -> [String]? {
    let indicators: ClosedRange<UInt32> = 0x1F1E6...0x1F1FF
    guard indicators.contains(first.value), indicators.contains(second.value) else { return nil }
    let letter = { (scalar: Unicode.Scalar) in
      String(Character(Unicode.Scalar(UInt8(scalar.value - 0x1F1E6) + UInt8(ascii: "A"))))
    }
    return [letter(first), letter(second)]
  }

  /// The C library's width of a scalar (what ncurses and most terminals count), -1 when it does
  /// not know the character. Needs the UTF-8 locale the terminal sets up.
  static func libraryWidth(_ scalar: UInt32) -> Int {
    Int(cnc_character_width(wchar_t(bitPattern: scalar)))
  }
}
