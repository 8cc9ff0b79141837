/// How many colours a terminal shows; themes are reduced to it rather than discarded.
public enum ColorCapability: Int, Sendable, Hashable, Comparable {
  /// No colour (NO_COLOR, TERM=dumb, a monochrome terminal): attributes only.
  case none = 0
  /// The 8 ANSI colours (`TERM=xterm`, `TERM=linux`): the bright ones are not there.
  case ansi8 = 8
  /// The 16 ANSI colours.
  case ansi16 = 16
  /// 256 indexed colours.
  case indexed256 = 256
  /// 24-bit colour.
  case truecolor = 16_777_216

  public static func < (left: ColorCapability, right: ColorCapability) -> Bool {
    left.rawValue < right.rawValue
  }

  /// What a terminal shows, decided from the environment and, when the backend knows it, the
  /// number of colours the terminal database gives (ncurses' `COLORS`; `nil` when unknown):
  /// - `NO_COLOR` set and not empty, `TERM` unset, empty or `dumb`, or fewer than 8 colours:
  ///   ``none`` (attributes such as bold and reverse are kept);
  /// - `COLORTERM` `truecolor` or `24bit`, or 2^24 colours (a `*-direct` terminfo entry):
  ///   ``truecolor``;
  /// - `TERM` ending in `-256color`, or 256 colours or more: ``indexed256``;
  /// - `TERM` ending in `-16color`, or 16 colours or more: ``ansi16``;
  /// - otherwise ``ansi8`` (what `xterm`, `linux` and `screen` describe; every colour terminal
  ///   shows these).
  public static func detect(environment: [String: String], terminalColors: Int? = nil) -> ColorCapability {
    if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
    let term = environment["TERM"] ?? ""
    if term.isEmpty || term == "dumb" { return .none }
    if let terminalColors, terminalColors < 8 { return .none }
    if let colorTerm = environment["COLORTERM"], colorTerm == "truecolor" || colorTerm == "24bit" {
      return .truecolor
    }
    if let terminalColors, terminalColors >= ColorCapability.truecolor.rawValue { return .truecolor }
    if term.hasSuffix("-256color") || (terminalColors ?? 0) >= 256 { return .indexed256 }
    if term.hasSuffix("-16color") || (terminalColors ?? 0) >= 16 { return .ansi16 }
    return .ansi8
  }
}
