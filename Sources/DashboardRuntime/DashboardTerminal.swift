import TerminalBackend
import TerminalInput
import TerminalScreen
import TerminalTheme

/// What the dashboard's loop needs of a terminal: its size, its events, and a place to draw.
///
/// ``TerminalBackend/Terminal`` (ncurses) is the real one; ``InMemoryTerminal`` records each
/// drawn screen and plays scripted events, for tests and benchmarks. The loop calls every
/// method from its own thread.
public protocol DashboardTerminal: AnyObject {
  /// Columns, as of the last start, resize or resume.
  var width: Int { get }
  /// Rows, as of the last start, resize or resume.
  var height: Int { get }
  /// The colours the terminal shows; themes are reduced to it.
  var colorCapability: ColorCapability { get }

  /// Takes the terminal over; ``stop()`` puts it back.
  func start() throws(TerminalError)
  /// Puts the terminal back as it was. Safe to call more than once.
  func stop()
  /// Turns mouse reporting on or off.
  func enableMouse(_ enabled: Bool)
  /// The next event, waiting at most `milliseconds` (0: only what is already there; negative:
  /// no limit). Returns nil when the time is up or when `descriptor` (the loop's wake pipe)
  /// became readable.
  func nextEvent(timeout milliseconds: Int, wakingOn descriptor: Int32?) -> TerminalEvent?
  /// Shows `screen`, each cell's role styled by `theme`.
  func draw(_ screen: Screen, theme: Theme)
  /// Forgets what is on the terminal: the next draw repaints every cell.
  func redrawAll()
  /// Puts `text` on the system clipboard (OSC 52).
  func copyToClipboard(_ text: String)
}

/// The ncurses terminal, as the dashboard's loop sees it.
extension Terminal: DashboardTerminal {}
