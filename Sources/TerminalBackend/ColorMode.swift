import TerminalTheme

/// How the backend turns a ``TerminalColor`` into an ncurses colour number, decided once from
/// what the terminal description and the environment say.
enum ColorMode: Sendable, Hashable {
  /// No colour: attributes only (`NO_COLOR`, or a terminal without colours).
  case none
  /// Eight colours: the bright ANSI colours fold onto the plain ones.
  case ansi8
  /// The sixteen ANSI colours.
  case ansi16
  /// 256 indexed colours.
  case indexed256
  /// A direct-colour terminal description (`COLORS` is 2^24, as with `TERM=xterm-direct`):
  /// colour numbers are `0xRRGGBB`, except that 0-7 are the ANSI colours.
  case direct

  /// The mode for a terminal with `colors` colours, as reported by ncurses (0 when it has
  /// none), given `NO_COLOR`'s value. `NO_COLOR` set and not empty turns colour off.
  static func detect(colors: Int, noColor: String?) -> ColorMode {
    if let noColor, !noColor.isEmpty { return .none }
    switch colors {
    case 16_777_216...: return .direct
    case 256...: return .indexed256
    case 16...: return .ansi16
    case 8...: return .ansi8
    default: return .none
    }
  }

  /// What a theme may be reduced to for this terminal.
  var capability: ColorCapability {
    switch self {
    case .none: return .none
    case .ansi8: return .ansi8
    case .ansi16: return .ansi16
    case .indexed256: return .indexed256
    case .direct: return .truecolor
    }
  }

  /// The ncurses colour number for `color`: -1 for the terminal's default, otherwise the
  /// nearest colour this mode can show (``TerminalColor/reduced(to:)``, the one reduction).
  func number(for color: TerminalColor) -> Int32 {
    switch (self, color) {
    case (.none, _), (_, .terminalDefault): return -1
    case (.direct, .ansi(let index)) where index < 8: return Int32(index)
    case (.direct, _):
      let (red, green, blue) = color.components ?? (0, 0, 0)
      // Numbers below 8 mean the ANSI colours in direct mode: nudge a near-black blue up.
      return max(Int32(red) << 16 | Int32(green) << 8 | Int32(blue), 8)
    default:
      switch color.reduced(to: capability) {
      case .ansi(let index): return Int32(index & (self == .ansi8 ? 7 : 15))
      case .indexed(let index): return Int32(index)
      case .terminalDefault, .rgb: return -1
      }
    }
  }
}
