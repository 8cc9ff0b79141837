import Dashboard
import KeyedArchive
import MailboxModel
import MailboxWatcher
import TerminalInput
import TerminalScreen
import Testing
import WormholeVocabulary

let home = "/w"
let group: FileName = "/w/AppGroup/group.example"

/// An archive of `value`, as a mailbox holds it.
func archive(_ value: ArchivedValue) -> MailboxObservation {
  let bytes = (try? KeyedArchiveEncoder().encodeBytes(value)) ?? []
  return .summarized(bytes: bytes, size: bytes.count, modifiedNanoseconds: 1_000_000_000)
}

/// A dashboard fed by hand: events, keys and time in, effects collected.
struct DashboardHarness {
  var state: DashboardState
  var effects: [DashboardEffect] = []
  var now: Int64 = 1_764_500_000_000

  init(width: Int = 100, height: Int = 30, readOnly: Bool = false, mailboxes: [FileName: ArchivedValue] = [:])
  {
    state = DashboardState(
      model: ModelState(), rootPaths: [home], width: width, height: height,
      now: now, isReadOnly: readOnly)
    if !mailboxes.isEmpty { scan(mailboxes.mapValues(archive)) }
  }

  /// The group appears with `mailboxes` as the watcher read them.
  mutating func scan(_ mailboxes: [FileName: MailboxObservation]) {
    send(
      .modelEvents(
        [.directoryAppeared(group), .directoryScanned(group, mailboxes: mailboxes, initial: true)], at: now))
  }

  /// Decodes are answered at once, as the loop's executor would before the next message
  /// (``decodesPerformed`` counts them); every other effect is collected.
  mutating func send(_ message: DashboardMessage) {
    guard answersDecodes else {
      effects += state.update(message)
      return
    }
    var performed = 0
    effects += state.update(message) { version in
      performed += 1
      return DecodedMessage(decoding: version)
    }
    decodesPerformed += performed
  }

  /// How many versions were decoded for the dashboard so far.
  var decodesPerformed = 0
  /// Whether decode effects are answered at once; when not, they are collected in ``effects``
  /// like any other, and the test answers them (or not) with ``DashboardMessage/decoded(serial:_:)``.
  var answersDecodes = true

  /// Types keys in ``TerminalInput/KeyNotation`` (`jj<Enter><C-u>`), as `snapshot --keys` does;
  /// notation that does not read is recorded as an issue and types nothing.
  mutating func type(_ keys: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
      for key in try KeyNotation.keys(from: keys) { send(.key(key)) }
    } catch {
      Issue.record("cannot type \(keys): \(error)", sourceLocation: sourceLocation)
    }
  }

  mutating func changeMailbox(
    _ identifier: FileName, to value: ArchivedValue, after milliseconds: Int64 = 1000
  ) {
    now += milliseconds
    send(.modelEvents([.mailboxChanged(directory: group, identifier: identifier, archive(value))], at: now))
  }

  var screen: Screen { DashboardView.render(state) }
  var lines: [String] { screen.lines }

  /// Whether any row of the frame contains `text`.
  func shows(_ text: String) -> Bool { lines.contains { $0.contains(text) } }

  /// The role of the first cell of `text` on screen.
  func role(of text: String) -> StyleRole? {
    let screen = screen
    for row in 0..<screen.height {
      let line = screen.lines[row]
      guard let range = line.range(of: text) else { continue }
      let column = TerminalWidth.columns(of: line[..<range.lowerBound])
      return screen[row, column].role
    }
    return nil
  }
}

extension DashboardHarness: CustomStringConvertible {
  /// The frame, for failure messages.
  var description: String { "\n" + lines.map { "|" + $0 + "|" }.joined(separator: "\n") }
}
