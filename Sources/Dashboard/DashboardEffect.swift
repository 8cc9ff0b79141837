import ArchivedValues
import WormholeVocabulary

/// What the loop around ``DashboardState/update(_:)`` should do: every write, every wait and
/// every look outside the state. The loop reports results back as messages.
public enum DashboardEffect: Sendable, Hashable {
  /// Pass `value` (or only the notification, for `nil`) to `identifier` in `directory`.
  case pass(directory: FileName, identifier: FileName, value: ArchivedValue?, transiting: TransitingType)
  /// Remove one mailbox.
  case clear(directory: FileName, identifier: FileName)
  /// Remove every mailbox of a directory.
  case clearAll(directory: FileName)
  /// Pass a kept version of a mailbox again, to the same or another place.
  case replayVersion(
    directory: FileName, identifier: FileName, serial: UInt64, toDirectory: FileName, toIdentifier: FileName,
    transiting: TransitingType)
  /// Perform a traffic entry again, to the same or another place.
  case replayEntry(entry: UInt64, toDirectory: FileName, toIdentifier: FileName, transiting: TransitingType)
  /// Send a value, a kept version or a traffic entry's message from one device of a pair to
  /// the other with a session type (the pass and replay forms' session types).
  case sessionSend(SessionSend)
  /// Send a push notification to, or open a URL on, a device of a pair (the route form, or a
  /// replay of a push or deep-link traffic entry): the running device routes it and answers
  /// with the route taken.
  case route(RouteSend)
  /// Cancel a transfer queued on a device of a pair (of the pair store under `home`): it is
  /// never delivered. A running device is asked to cancel it; a stopped one's queue is edited.
  case cancelTransfer(home: String, pair: String, role: PairSnapshot.Role, id: UInt64)
  /// Accept or decline a running peer's pending invitation, through its control socket.
  case answerInvitation(PeerAnswer)
  /// Send data from a running peer to connected peers, through its control socket.
  case peerSend(PeerDataSend)
  /// Have a running peer leave its session or cancel a resource, through its control socket.
  case peerCommand(PeerCommand)
  /// Decode a kept version of a mailbox, off the loop, and send
  /// ``DashboardMessage/decoded(serial:_:)``: the contents pane shows it. Asked for once per
  /// version, when the pane first needs it; it does not write, so read-only runs it too.
  case decode(directory: FileName, identifier: FileName, serial: UInt64)
  /// Put `text` on the clipboard through the terminal (OSC 52).
  case copyToClipboard(String)
  /// Load a theme: the next one, or one by name or path.
  case loadTheme(ThemeRequest)
  /// Send ``DashboardMessage/clock(_:)`` at this time (a pairing window closes, a highlight ends).
  case wake(atMilliseconds: Int64)
  /// Read every directory again: events were dropped while the dashboard was frozen.
  case rescan
  /// Draw the whole screen again from nothing (Ctrl-L): the terminal and the dashboard may
  /// disagree on what is shown.
  case repaint
  /// Leave, restoring the terminal.
  case quit

  /// Whether the effect writes to a wormhole directory. ``DashboardState/update(_:)`` never
  /// returns one of these when the dashboard is read-only, whatever asked for it.
  public var writes: Bool {
    switch self {
    case .pass, .clear, .clearAll, .replayVersion, .replayEntry, .sessionSend, .route, .cancelTransfer,
      .answerInvitation, .peerSend, .peerCommand:
      return true
    case .decode, .copyToClipboard, .loadTheme, .wake, .rescan, .repaint, .quit: return false
    }
  }

  /// The operation in a few words, for messages (`pass to "button"`); identifiers escaped.
  public var operation: String {
    switch self {
    case .pass(_, let identifier, _, let transiting):
      return "pass to \(identifier.displayField) (\(transiting))"
    case .clear(_, let identifier): return "clear of \(identifier.displayField)"
    case .clearAll(let directory): return "clear-all of \(directory.displayField)"
    case .sessionSend(let send):
      return (send.isReplay ? "replay of \(send.contentDescription)" : "pass")
        + " to \(DisplayText.field(send.identifier)) (\(send.transiting) from \(send.sender.direction))"
    case .route(let send): return send.operation
    case .answerInvitation(let answer): return answer.operation
    case .peerSend(let send): return send.operation
    case .peerCommand(let command): return command.operation
    case .cancelTransfer(_, let pair, let role, let id):
      return "cancel of transfer #\(id) of \(DisplayText.field(pair)) \(role.rawValue)"
    case .replayVersion(_, let identifier, _, _, let toIdentifier, let transiting):
      // The serial is the model's, not a number the operator sees in the mailbox.
      return
        "replay of a kept version of \(identifier.displayField) to \(toIdentifier.displayField) (\(transiting))"
    case .replayEntry(let entry, _, let toIdentifier, let transiting):
      return "replay of traffic entry \(entry) to \(toIdentifier.displayField) (\(transiting))"
    case .decode(_, let identifier, _):
      return "decode of a kept version of \(identifier.displayField)"
    case .copyToClipboard: return "copy"
    case .loadTheme(let request): return "theme \(request)"
    case .wake: return "wake-up"
    case .rescan: return "rescan"
    case .repaint: return "repaint"
    case .quit: return "quit"
    }
  }

  /// The verb of the operation, first word of its messages (`pass`, `clear`, `replay`).
  public var verb: String {
    switch self {
    case .pass: return "pass"
    case .clear: return "clear"
    case .clearAll: return "clear-all"
    case .cancelTransfer: return "cancel-transfer"
    case .answerInvitation(let answer): return answer.word
    case .peerSend: return "peer-send"
    case .peerCommand(let command): return command.word
    case .replayVersion, .replayEntry: return "replay"
    case .sessionSend(let send): return send.isReplay ? "replay" : "pass"
    case .route(let send): return send.replayOf == nil ? send.verb : "replay"
    case .decode: return "decode"
    case .copyToClipboard: return "copy"
    case .loadTheme: return "theme"
    case .wake: return "wake-up"
    case .rescan: return "rescan"
    case .repaint: return "repaint"
    case .quit: return "quit"
    }
  }
}
