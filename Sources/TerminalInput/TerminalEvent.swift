/// What the terminal reports to the program's loop: the terminal backend produces these;
/// tests write them by hand.
public enum TerminalEvent: Sendable, Hashable {
  /// A key press.
  case key(Key)
  /// The terminal now has `width` columns and `height` rows. The backend has already dropped
  /// its previous frame: the next draw repaints everything.
  case resize(width: Int, height: Int)
  /// A click or a wheel turn (only after mouse reporting was enabled).
  case mouse(MouseEvent)
  /// Text pasted into the terminal, whole, as one event (bracketed paste): line ends as `\n`,
  /// bytes that are not UTF-8 as U+FFFD, control characters kept. Escape it (`DisplayText`)
  /// before it reaches the screen. A terminal without bracketed paste sends the same text as
  /// key presses instead.
  case paste(String)
  /// A paste longer than the backend takes (16 MiB unless told otherwise), `byteCount` bytes:
  /// its text was read and dropped, never held whole.
  case pasteTooLarge(byteCount: Int)
  /// The program was suspended (Ctrl-Z) and is running again; the next draw repaints
  /// everything.
  case suspendResumed
  /// SIGINT (Ctrl-C), SIGTERM or SIGHUP arrived, or the terminal went away (reported as
  /// SIGHUP). The loop should stop the terminal and exit; a second such signal before it
  /// does restores the terminal and ends the process at once.
  case interrupted(signal: Int32)
}
