import TerminalScreen

/// Text from files and other processes, made safe to show on one line of a terminal: the one
/// definition of what a terminal would act on or not draw, and the one escaper for each output
/// kind (terminal text, JSON strings) built on it.
///
/// Identifiers, sender labels, kinds and error messages may hold anything a file name can:
/// control characters (an escape sequence could retitle the window, recolour or move the
/// cursor), line breaks (which would split a one-line-per-record output), bidirectional
/// overrides (which reorder what is shown), and characters that draw nothing (a zero-width space
/// makes `zw\u{200B}j` look like `zwj`). These are written as `\u{…}` escapes; JSON output
/// (``appendJSONString(_:to:)``) writes the same characters, with names' strength, as `\uXXXX`.
///
/// Two strengths:
/// - **Names** (``field(_:)``, ``quoted(_:)``, ``name(_:)``: identifiers, file and directory names,
///   senders, kinds) escape every invisible character, joiners and variation selectors included,
///   so two names that differ always look different; and a flag's regional indicators, which
///   terminals draw at different widths and the dashboard draws as letters.
/// - **Text** (``escaped(_:)``: message contents, errors, notices shown as text)
///   keeps a joiner, variation selector or tag character that shapes the visible character just
///   before it (emoji sequences such as 👨‍👩‍👧 and 🏴󠁧󠁢󠁳󠁣󠁴󠁿, Persian and Indic joiners), and escapes every
///   other invisible character and everything a terminal acts on.
public enum DisplayText {
  /// `text` in double quotes, with quotes, backslashes, controls, separators, bidirectional
  /// controls and invisible characters escaped (names' strength).
  public static func quoted(_ text: String) -> String {
    var out = "\""
    append(text, to: &out, quotes: true, strict: true)
    out += "\""
    return out
  }

  /// `text` unquoted, with only what a terminal would act on (controls, line breaks, separators,
  /// bidirectional controls) and invisible characters that shape nothing escaped: for messages
  /// and contents that quote names of their own.
  public static func escaped(_ text: String) -> String {
    var out = ""
    append(text, to: &out, quotes: false, strict: false)
    return out
  }

  /// `text` unquoted with names' strength: every invisible character escaped, so that a name
  /// shown alone in a column (a directory path in a tree) cannot pass for another.
  public static func name(_ text: String) -> String {
    var out = ""
    append(text, to: &out, quotes: false, strict: true)
    return out
  }

  /// `text` as it is when it reads as one plain word (no spaces, quotes, backslashes or
  /// characters that need escaping as a name), else ``quoted(_:)``: one column of a line,
  /// whatever it holds.
  public static func field(_ text: String) -> String {
    let plain =
      !text.isEmpty
      && text.unicodeScalars.allSatisfy { $0 != " " && $0 != "\"" && $0 != "\\" && !needsEscape($0) }
      && !hasTooManyMarks(text)
    return plain ? text : quoted(text)
  }

  /// Whether a character of `text` carries more than ``maximumMarks`` combining marks.
  static func hasTooManyMarks(_ text: String) -> Bool {
    var marks = 0
    for scalar in text.unicodeScalars {
      marks = TerminalWidth.isCombiningMark(scalar: scalar) ? marks + 1 : 0
      if marks > maximumMarks { return true }
    }
    return false
  }

  /// Appends `text` to `out` as terminal text: `\n`, `\t`, `\r` by name, the rest of what
  /// ``needsEscape(_:after:strict:)`` picks as `\u{hex}`, and with `quotes`, `\"` and `\\`.
  public static func append(_ text: String, to out: inout String, quotes: Bool, strict: Bool) {
    if isPlainASCII(text, quotes: quotes) {
      out += text
      return
    }
    // The last scalar written as it is; `nil` after an escape, which nothing can join.
    var previous: Unicode.Scalar?
    // Combining marks written on the character before them, which a terminal cell holds only so
    // many of (ncurses: 4): the rest are escaped, so that `a` with 40 marks neither loses them
    // all on screen nor passes for `a` with 4.
    var marks = 0
    for scalar in text.unicodeScalars {
      let isMark = TerminalWidth.isCombiningMark(scalar: scalar)
      switch scalar {
      case "\"" where quotes: out += "\\\""
      case "\\" where quotes: out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      case _ where needsEscape(scalar, after: previous, strict: strict) || (isMark && marks >= maximumMarks):
        out += "\\u{" + String(scalar.value, radix: 16) + "}"
      default:
        out.unicodeScalars.append(scalar)
        previous = scalar
        marks = isMark ? marks + 1 : 0
        continue
      }
      previous = nil
    }
  }

  /// How many combining marks one character is drawn with; those after are escaped. A terminal
  /// cell holds a character and at most 4 more (ncurses' `CCHARW_MAX` of 5).
  public static let maximumMarks = 4

  /// Appends `text` as a JSON string literal (RFC 8259) in UTF-8, quotes included: `"` and `\`
  /// escaped, and everything ``needsEscape(_:)`` picks (names' strength: every invisible
  /// character, as JSON is read by programs and an escape reads back the same, and combining marks
  /// past ``maximumMarks`` on one character) as `\uXXXX` (a surrogate pair past U+FFFF), so that
  /// JSON piped to a terminal cannot act on it or hide a character; it reads back as exactly `text`.
  public static func appendJSONString(_ text: String, to out: inout [UInt8]) {
    out.reserveCapacity(out.count + text.utf8.count + 2)
    out.append(UInt8(ascii: "\""))
    if isPlainASCII(text, quotes: true) {
      out.append(contentsOf: text.utf8)
      out.append(UInt8(ascii: "\""))
      return
    }
    var marks = 0  // as in `append(_:to:quotes:strict:)`: marks past what a cell draws are escaped
    for scalar in text.unicodeScalars {
      let isMark = TerminalWidth.isCombiningMark(scalar: scalar)
      switch scalar {
      case "\"": out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
      case "\\": out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
      case "\n": out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case "\r": out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
      case "\t": out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case _ where needsEscape(scalar) || (isMark && marks >= maximumMarks):
        appendJSONEscape(of: scalar, to: &out)
      default:
        out.append(contentsOf: String(scalar).utf8)
        marks = isMark ? marks + 1 : 0
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  /// `text` as a JSON string literal: ``appendJSONString(_:to:)`` as a `String`.
  public static func jsonString(_ text: String) -> String {
    var out: [UInt8] = []
    appendJSONString(text, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// A line of JSON from disk (a journal record as stored) with every character a terminal would
  /// act on, and every invisible one, written as a `\uXXXX` escape, as ``appendJSONString(_:to:)``
  /// writes them. Such
  /// characters can only stand inside strings of valid JSON, so the line means what it meant;
  /// anything that is not JSON stays not JSON, but harmless.
  public static func jsonLine(_ line: String) -> String {
    if isPlainASCII(line, quotes: false) { return line }
    var out: [UInt8] = []
    out.reserveCapacity(line.utf8.count)
    for scalar in line.unicodeScalars {
      if needsEscape(scalar) {
        appendJSONEscape(of: scalar, to: &out)
      } else {
        out.append(contentsOf: String(scalar).utf8)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  private static func appendJSONEscape(of scalar: Unicode.Scalar, to out: inout [UInt8]) {
    func unit(_ value: UInt32) {
      out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
      for shift in stride(from: 12, through: 0, by: -4) {
        out.append(hexDigits[Int((value >> UInt32(shift)) & 0xF)])
      }
    }
    if scalar.value < 0x10000 {
      unit(scalar.value)
    } else {
      let offset = scalar.value - 0x10000
      unit(0xD800 + (offset >> 10))
      unit(0xDC00 + (offset & 0x3FF))
    }
  }

  /// Printable ASCII, without quotes or backslashes when `quotes`: nothing to escape.
  static func isPlainASCII(_ text: String, quotes: Bool) -> Bool {
    text.utf8.allSatisfy { byte in
      byte >= 0x20 && byte < 0x7F && !(quotes && (byte == 0x22 || byte == 0x5C))
    }
  }

  // MARK: The definition

  /// Whether a terminal would act on `scalar` rather than draw it: the control characters of
  /// ``TerminalScreen/TerminalWidth/isControl(scalar:)`` (C0 and C1 controls such as
  /// ESC, BEL and CSI, DEL, line and paragraph separators), and bidirectional controls
  /// (embeddings, overrides, isolates, marks), which reorder what follows.
  public static func isActive(_ scalar: Unicode.Scalar) -> Bool {
    if TerminalWidth.isControl(scalar: scalar) { return true }
    switch scalar.value {
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
    default: return false
    }
  }

  /// Whether `scalar` draws nothing: Unicode's default-ignorable code points (zero-width space,
  /// joiners, word joiner, invisible operators, byte-order mark, soft hyphen, variation
  /// selectors, tag characters, Hangul fillers…) and the interlinear annotation characters
  /// U+FFF9…U+FFFB.
  public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
    // Unicode 15's Default_Ignorable_Code_Point, spelt out (faster than the property lookup, and
    // the same whatever Unicode version the standard library carries), plus U+FFF9…U+FFFB.
    switch scalar.value {
    case 0xAD, 0x34F, 0x61C, 0x115F...0x1160, 0x17B4...0x17B5, 0x180B...0x180F, 0x200B...0x200F,
      0x202A...0x202E, 0x2060...0x206F, 0x3164, 0xFE00...0xFE0F, 0xFEFF, 0xFFA0, 0xFFF0...0xFFFB,
      0x1BCA0...0x1BCA3, 0x1D173...0x1D17A, 0xE0000...0xE0FFF:
      return true
    default: return false
    }
  }

  /// Joiners, variation selectors and tag characters: invisible, but shaping the visible
  /// character before them (emoji sequences, ideographic variants, Persian and Indic joining).
  static func shapesPrevious(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x200C, 0x200D, 0xFE00...0xFE0F, 0xE0020...0xE007F, 0xE0100...0xE01EF: return true
    default: return false
    }
  }

  /// Whether `scalar`, coming after `previous` (`nil` at the start), is written as an escape:
  /// anything ``isActive(_:)``; anything ``isInvisible(_:)`` when `strict` (names); with text
  /// strength, an invisible character unless it shapes a visible character just before it.
  public static func needsEscape(_ scalar: Unicode.Scalar, after previous: Unicode.Scalar?, strict: Bool)
    -> Bool
  {
    if scalar.value < 0xA0 { return isActive(scalar) }
    if isActive(scalar) { return true }
    // A flag's regional indicators, in a name: terminals disagree on their width, so the
    // dashboard draws a flag as its two letters, and `flag🇫🇷` would pass for `flagFR`.
    if strict && (0x1F1E6...0x1F1FF).contains(scalar.value) { return true }
    guard isInvisible(scalar) else { return false }
    if strict || !shapesPrevious(scalar) { return true }
    guard let previous else { return true }
    // A joiner after a joiner or selector continues a sequence (👨‍👩‍👧 is man ZWJ woman ZWJ girl;
    // a flag's tags follow one another); after a space, a control or a bare invisible it
    // shapes nothing.
    if shapesPrevious(previous) { return !isSequenceContinuation(scalar, previous) }
    return previous.properties.isWhitespace || isActive(previous) || isInvisible(previous)
  }

  /// Whether `scalar` may follow `previous`, itself a shaping character, inside one sequence:
  /// tags after tags, a variation selector or joiner after a variation selector (`❤️‍🔥`).
  private static func isSequenceContinuation(_ scalar: Unicode.Scalar, _ previous: Unicode.Scalar) -> Bool {
    let isTag = (0xE0020...0xE007F).contains(scalar.value)
    let previousIsTag = (0xE0020...0xE007F).contains(previous.value)
    let previousIsSelector =
      (0xFE00...0xFE0F).contains(previous.value) || (0xE0100...0xE01EF).contains(previous.value)
    if isTag { return previousIsTag }
    return scalar.value == 0x200D && previousIsSelector
  }

  /// Whether `scalar` is escaped wherever it stands, whatever surrounds it: what a terminal
  /// would act on, or an invisible character (names' strength, without context).
  public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    needsEscape(scalar, after: nil, strict: true)
  }
}
