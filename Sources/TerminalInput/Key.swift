/// One key press, as the dashboard's keymap sees it: no terminal codes, no ncurses.
///
/// The terminal backend decodes what the terminal sends into these; tests and
/// `snapshot --keys` write them by hand or through ``KeyNotation``.
public enum Key: Sendable, Hashable {
  /// A printable character (a letter, a digit, punctuation, a space, a CJK character...).
  case character(Character)
  case enter
  case escape
  case tab
  /// Shift-Tab.
  case backTab
  case up
  case down
  case left
  case right
  case pageUp
  case pageDown
  case home
  case end
  case insert
  /// The Delete key (forward delete), not Backspace.
  case delete
  case backspace
  /// A function key, `F1` is `function(1)`.
  case function(Int)
  /// Control with a letter or one of `@[\]^_`, stored in lower case: Ctrl-D is `control("d")`.
  ///
  /// Ctrl-I, Ctrl-M, Ctrl-H and Ctrl-[ arrive as ``tab``, ``enter``, ``backspace`` and
  /// ``escape``: terminals send the same bytes for both.
  case control(Character)
}
