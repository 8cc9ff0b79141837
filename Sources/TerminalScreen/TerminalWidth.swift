/// How many terminal columns text takes, independent of the process locale.
///
/// Counted per grapheme cluster (what a person sees as one character, as Swift's `Character`
/// segments it):
/// - 2 when the cluster's base is East Asian Wide or Fullwidth (CJK, Hangul, fullwidth forms,
///   emoji with emoji presentation), or the cluster is an emoji sequence: a pictograph with
///   U+FE0F (`©️`), a skin-tone modifier, a ZWJ sequence, a flag (two regional indicators) or a
///   keycap;
/// - 0 for a cluster of only zero-width scalars (combining marks, format characters such as
///   U+200D ZERO WIDTH JOINER, variation selectors) and for control characters, which views
///   must escape before they get here (`DisplayText`);
/// - 1 otherwise (`©` without U+FE0F is text presentation: 1).
///
/// Widths of single scalars come from tables generated from the Unicode Character Database
/// (``unicodeVersion``, the version Swift's `Unicode.Scalar.Properties` uses) by
/// `.ci/generate-width-tables.py`; emoji properties from `Unicode.Scalar.Properties`.
public enum TerminalWidth {
  /// The Unicode version of the width tables.
  public static var unicodeVersion: String { UnicodeWidthTables.unicodeVersion }

  /// The columns one grapheme cluster takes: 0, 1 or 2.
  public static func columns(of character: Character) -> Int {
    // ASCII letters, digits and punctuation: the common case, without a table lookup.
    if let ascii = character.asciiValue {
      return ascii >= 0x20 && ascii < 0x7F ? 1 : 0
    }
    var base: Unicode.Scalar?
    var baseColumns = 0
    var emojiSequence = false
    var regionalIndicators = 0
    var afterJoiner = false
    for scalar in character.unicodeScalars {
      switch scalar.value {
      case 0xFE0F, 0x20E3:
        // Emoji presentation selector, combining enclosing keycap: an emoji when the base is one.
        if base?.properties.isEmoji == true { emojiSequence = true }
      case 0x1F3FB...0x1F3FF:
        emojiSequence = true  // skin tone modifier: drawn as an emoji whatever it follows
      case 0x1F1E6...0x1F1FF:
        regionalIndicators += 1
      default:
        if afterJoiner && scalar.properties.isEmoji && base?.properties.isEmoji == true {
          emojiSequence = true
        }
      }
      afterJoiner = scalar.value == 0x200D
      if base == nil {
        let columns = columns(of: scalar)
        if columns > 0 {
          base = scalar
          baseColumns = columns
        }
      }
    }
    guard base != nil else { return 0 }
    if emojiSequence || regionalIndicators >= 2 { return 2 }
    return baseColumns
  }

  /// The columns `text` takes.
  public static func columns(of text: some StringProtocol) -> Int {
    // Printable ASCII, the common case: one column a byte.
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
    return text.reduce(0) { $0 + columns(of: $1) }
  }

  /// Whether `character` holds a control character (``isControl(scalar:)``):
  /// something a terminal would act on rather than draw. ``Screen/write(_:row:column:limit:role:)``
  /// drops these; views escape them first.
  public static func isControl(_ character: Character) -> Bool {
    character.unicodeScalars.contains(where: isControl(scalar:))
  }

  /// Whether `scalar` is a control character (C0, DEL, C1) or a line or paragraph separator: the
  /// one definition of a control character, for the screen, its snapshot text, the backend and
  /// `DisplayText` (which adds the bidirectional controls to what it escapes). Takes no columns.
  @inlinable public static func isControl(scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
    default: false
    }
  }

  /// Whether `scalar` is a nonspacing or enclosing mark: drawn on the character before it, in no
  /// column of its own. The one definition for `DisplayText` (which escapes marks past what a
  /// cell holds) and the backend (which draws a character with the marks a cell holds).
  public static func isCombiningMark(scalar: Unicode.Scalar) -> Bool {
    guard scalar.value >= 0x300 else { return false }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark: return true
    default: return false
    }
  }

  /// `text` cut to at most `limit` columns, ending in `…` when it was cut.
  public static func truncated(_ text: String, toColumns limit: Int) -> String {
    guard limit > 0 else { return "" }
    if columns(of: text) <= limit { return text }
    var out = ""
    var used = 0
    for character in text {
      let needed = columns(of: character)
      if used + needed > limit - 1 { break }
      out.append(character)
      used += needed
    }
    return out + "…"
  }

  /// `text` padded with spaces (or cut) to exactly `width` columns.
  public static func padded(_ text: String, toColumns width: Int) -> String {
    let cut = truncated(text, toColumns: width)
    return cut + String(repeating: " ", count: max(width - columns(of: cut), 0))
  }

  /// The columns of one scalar on its own: 0 for zero-width and control scalars, 2 for East
  /// Asian Wide and Fullwidth, 1 otherwise.
  static func columns(of scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if isControl(scalar: scalar) { return 0 }
    if value < 0x7F { return 1 }
    return UnicodeWidthTables.widths.columns(of: value) ?? 1
  }
}
