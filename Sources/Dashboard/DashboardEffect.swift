import ArchivedValues
import WormholeVocabulary

/// What the loop around ``DashboardState/update(_:)`` should do: every write, every wait and
/// every look outside the state. The loop reports results back as messages.
public enum DashboardEffect: Sendable, Hashable {
  /// Pass `value` (or only the notification, for `nil`) to `identifier` in `directory`.
  case pass(directory: FileName, identifier: FileName, value: ArchivedValue?, transiting: String)
  /// Remove one mailbox.
  case clear(directory: FileName, identifier: FileName)
  /// Remove every mailbox of a directory.
  case clearAll(directory: FileName)
  /// Pass a kept version of a mailbox again, to the same or another place.
  case replayVersion(
    directory: FileName, identifier: FileName, serial: UInt64, toDirectory: FileName, toIdentifier: FileName,
    transiting: String)
  /// Perform a traffic entry again, to the same or another place.
  case replayEntry(entry: UInt64, toDirectory: FileName, toIdentifier: FileName, transiting: String)
  /// Put `text` on the clipboard through the terminal (OSC 52).
  case copyToClipboard(String)
  /// Load the theme with this name or path.
  case loadTheme(String)
  /// Send ``DashboardMessage/clock(_:)`` at this time (a pairing window closes, a highlight ends).
  case wake(atMilliseconds: Int64)
  /// Read every directory again: events were dropped while the dashboard was frozen.
  case rescan
  /// Leave, restoring the terminal.
  case quit
}
