/// A colour as a theme names it, before it is reduced to what the terminal can show.
public enum TerminalColor: Sendable, Hashable {
  /// The terminal's own foreground or background.
  case terminalDefault
  /// One of the 16 ANSI colours (0 black ... 7 white, 8-15 their bright forms).
  case ansi(UInt8)
  /// One of the 256 indexed colours.
  case indexed(UInt8)
  /// A 24-bit colour.
  case rgb(red: UInt8, green: UInt8, blue: UInt8)
}
