import FleetModel
import MailboxModel
import TerminalInput

/// Everything that reaches the dashboard's loop: keys, the terminal's size, the watcher's
/// events, time, and the results of effects. Tests write these by hand.
public enum DashboardMessage: Sendable {
  /// A key press.
  case key(Key)
  /// A click (a press of any button) on a cell: focuses the pane there and selects the row.
  case click(row: Int, column: Int)
  /// The mouse wheel turned over a cell: scrolls the pane there by three rows.
  case wheel(up: Bool, row: Int, column: Int)
  /// The terminal has a new size.
  case resize(width: Int, height: Int)
  /// The watcher's events, with the time they were read (milliseconds since 1970).
  case modelEvents([ModelEvent], at: Int64)
  /// Time passed (milliseconds since 1970): ages, highlights, status messages and pairing windows.
  case clock(Int64)
  /// Text pasted into the terminal, in one piece (bracketed paste): it goes into the text field
  /// being edited in one step, never key by key.
  case paste(String)
  /// A paste larger than the terminal reads whole: only its size arrived, and nothing is
  /// inserted.
  case pasteTooLarge(byteCount: Int)
  /// An effect finished: which one, and why it failed if it did.
  case effectFinished(EffectResult)
  /// A version asked for with ``DashboardEffect/decode(directory:identifier:serial:)`` was
  /// decoded (off the loop): kept while the contents pane wants it, dropped otherwise.
  case decoded(serial: UInt64, DecodedMessage)
  /// A decode asked for was not done: its version was no longer wanted
  /// (``DecodedVersions/wanted``) when the executor came to it. It is asked for again when it
  /// is wanted again.
  case decodeSkipped(serial: UInt64)
  /// The pairs of simulated devices under the home now, whole (at start and after every
  /// change: a device started or stopped, a context or a queue changed).
  case pairs([PairSnapshot])
  /// The running simulated peers under the home now, whole (at start and after every change:
  /// a peer started or ended, connected, was invited).
  case peers([PeerSnapshot])
  /// Messages from the broker (`--broker`), as many as arrived since the last batch, checked
  /// where they were read (``FleetModel/FleetMessage/init(_:at:)``), with the time they were
  /// read (milliseconds since 1970). They join the fleet's backlog, of which one slice is
  /// applied; an empty batch (the loop's, while ``DashboardState/isLoadingFleet``) applies the
  /// next slice.
  case fleet([FleetMessage], at: Int64)
  /// The broker connection changed: connected (`nil`), or lost or refused, with why.
  case fleetConnection(String?)
  /// A theme was loaded (its name), or could not be (the reason; the theme in use stays).
  case themeLoaded(name: String, error: String?)
}
