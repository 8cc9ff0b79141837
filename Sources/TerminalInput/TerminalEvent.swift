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
  /// The program was suspended (Ctrl-Z) and is running again; the next draw repaints
  /// everything.
  case suspendResumed
  /// SIGINT (Ctrl-C), SIGTERM or SIGHUP arrived, or the terminal went away (reported as
  /// SIGHUP). The loop should stop the terminal and exit; a second such signal before it
  /// does restores the terminal and ends the process at once.
  case interrupted(signal: Int32)
}
