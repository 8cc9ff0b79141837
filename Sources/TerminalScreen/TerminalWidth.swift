/// How many terminal columns text takes, independent of the process locale.
///
/// Counted per grapheme cluster (what a person sees as one character): 0 for a cluster of
/// only zero-width scalars, 2 for East Asian wide and fullwidth characters and emoji
/// presentation (including modifier and ZWJ sequences, flags and keycaps), 1 otherwise.
public enum TerminalWidth {
  /// The columns one grapheme cluster takes: 0, 1 or 2.
  public static func columns(of character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    var width = columns(of: first)
    if width == 0 {
      // A cluster made of marks alone (a combining mark at the start of a string).
      return scalars.contains { columns(of: $0) > 0 } ? 1 : 0
    }
    if width == 1 && scalars.count > 1 {
      for scalar in scalars.dropFirst() {
        // Emoji presentation selector, skin tone modifier, or a ZWJ sequence: an emoji.
        if scalar.value == 0xFE0F || (0x1F3FB...0x1F3FF).contains(scalar.value) { width = 2 }
        if scalar.value == 0x20E3 { width = 2 }  // keycap
      }
      if scalars.contains(where: { (0x1F1E6...0x1F1FF).contains($0.value) }) { width = 2 }  // flags
    }
    return width
  }

  /// The columns `text` takes.
  public static func columns(of text: some StringProtocol) -> Int {
    text.reduce(0) { $0 + columns(of: $1) }
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

  /// The columns of one scalar on its own. A first approximation kept small: East Asian Wide
  /// and Fullwidth blocks, emoji blocks, and the common zero-width scalars.
  static func columns(of scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if scalar.properties.generalCategory == .nonspacingMark
      || scalar.properties.generalCategory == .enclosingMark
      || value == 0x200B || value == 0x200C || value == 0x200D || value == 0x2060
      || (0xFE00...0xFE0F).contains(value)
      || (0xE0100...0xE01EF).contains(value)
    {
      return 0
    }
    if scalar.properties.isEmojiPresentation { return 2 }
    switch value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
      0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60,
      0xFFE0...0xFFE6, 0x1B000...0x1B2FF, 0x1F200...0x1F2FF, 0x20000...0x3FFFD:
      return 2
    default: return 1
    }
  }
}
