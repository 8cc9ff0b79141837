/// Text from files and other processes, made safe to show on one line of a terminal.
///
/// Identifiers, sender labels and error messages may hold anything a file name can: control
/// characters (an escape sequence could recolour or move the cursor), line breaks (which would
/// split a one-line-per-record output), and bidirectional overrides (which reorder what is
/// shown). These are written as `\u{…}` escapes; everything else is shown as it is.
public enum DisplayText {
  /// `text` in double quotes, with quotes, backslashes, controls, line separators and
  /// bidirectional controls escaped.
  public static func quoted(_ text: String) -> String { "\"" + escape(text, quotes: true) + "\"" }

  /// `text` unquoted, with only what a terminal would act on (controls, line breaks, line
  /// separators, bidirectional controls) escaped: for messages that quote names of their own.
  public static func escaped(_ text: String) -> String { escape(text, quotes: false) }

  private static func escape(_ text: String, quotes: Bool) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"" where quotes: out += "\\\""
      case "\\" where quotes: out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case _ where needsEscape(scalar): out += "\\u{" + String(scalar.value, radix: 16) + "}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// `text` as it is when it reads as one plain word (no spaces, quotes, backslashes or
  /// characters that need escaping), else ``quoted(_:)``: one column of a line, whatever it holds.
  public static func field(_ text: String) -> String {
    let plain =
      !text.isEmpty
      && text.unicodeScalars.allSatisfy {
        $0 != " " && $0 != "\"" && $0 != "\\" && !needsEscape($0)
      }
    return plain ? text : quoted(text)
  }

  /// C0 and C1 controls, DEL, line and paragraph separators, and bidirectional controls.
  static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00..<0x20, 0x7F..<0xA0: return true
    case 0x2028, 0x2029: return true
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
    default: return false
    }
  }
}
