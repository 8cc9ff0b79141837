import TerminalInput

/// ncurses key codes to ``Key`` values: a pure mapping, tested with the numbers themselves.
///
/// The numbers are ncurses' own (`KEY_UP` is 0o403 and so on, fixed by its ABI); they are
/// spelled out here so that the mapping can be tested without a terminal.
enum KeyDecoding {
  /// The key for a character `wget_wch` returned with `OK`, or nil for one not to report.
  static func key(character code: UInt32) -> Key? {
    switch code {
    case 0x0A, 0x0D: return .enter
    case 0x09: return .tab
    case 0x1B: return .escape
    case 0x08, 0x7F: return .backspace
    case 0x00: return .control("@")
    case 0x01...0x1A: return Unicode.Scalar(code + 0x60).map { .control(Character($0)) }
    case 0x1C: return .control("\\")
    case 0x1D: return .control("]")
    case 0x1E: return .control("^")
    case 0x1F: return .control("_")
    case 0x80...0x9F: return nil
    default: return Unicode.Scalar(code).map { .character(Character($0)) }
    }
  }

  /// The key for a code `wget_wch` returned with `KEY_CODE_YES`, or nil for one not to report
  /// (`KEY_RESIZE` and `KEY_MOUSE` are handled before this; unknown codes are dropped).
  static func key(functionKey code: UInt32) -> Key? {
    switch code {
    case 0o402: return .down
    case 0o403: return .up
    case 0o404: return .left
    case 0o405: return .right
    case 0o406: return .home
    case 0o407: return .backspace
    case 0o410...0o507: return .function(Int(code - 0o410))
    case 0o512: return .delete
    case 0o513: return .insert
    case 0o522: return .pageDown
    case 0o523: return .pageUp
    case 0o527: return .enter  // the keypad's Enter
    case 0o541: return .backTab
    case 0o550: return .end
    case 0o601: return .home  // KEY_A1 .. KEY_C3: the keypad's corners, as PC keypads send them
    case 0o603: return .pageUp
    case 0o604: return .end
    case 0o606: return .pageDown
    default: return nil
    }
  }
}
