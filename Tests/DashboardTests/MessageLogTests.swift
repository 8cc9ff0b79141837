import Dashboard
import KeyedArchive
import MailboxModel
import TerminalInput
import Testing
import WormholeVocabulary

/// Every status message goes to a bounded log the operator opens with `L` or `:messages`, so a
/// message cut at the terminal's width can be read whole.
@Suite struct MessageLogTests {
  static let longReason = String(repeating: "the reason goes on ", count: 12) + "END"

  @Test func aLongMessageIsCutOnTheStatusLineAndWholeInTheLog() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    let effect = DashboardEffect.clear(directory: group, identifier: "a")
    harness.send(.effectFinished(.failed(effect, Self.longReason)))
    #expect(harness.lines[0].hasSuffix("… L"))
    #expect(harness.lines[0].contains("clear failed: the reason goes on"))
    #expect(!harness.shows("END"))
    harness.type("L")
    guard case .messages? = harness.state.overlay else {
      Issue.record("L did not open the log")
      return
    }
    #expect(harness.shows("END (clear of a)"))
    #expect(harness.shows("10:53:20.000 clear failed"))
    harness.type("<Esc>")
    #expect(harness.state.overlay == nil)
    harness.type(":messages<Enter>")
    guard case .messages? = harness.state.overlay else {
      Issue.record(":messages did not open the log")
      return
    }
  }

  @Test func theLogKeepsTheLastMessagesAndScrolls() {
    var harness = DashboardHarness(width: 100, height: 20, mailboxes: ["a": .integer(1)])
    for index in 1...(MessageLog.capacity + 50) {
      harness.send(.themeLoaded(name: "t\(index)", error: nil))
    }
    let entries = harness.state.messageLog.entries
    #expect(entries.count == MessageLog.capacity)
    #expect(entries.first?.text == "theme t51" && entries.last?.text == "theme t250")
    // Below the status line, which shows the newest message too.
    func logShows(_ text: String) -> Bool { harness.lines.dropFirst().contains { $0.contains(text + " ") } }
    harness.type("L")
    #expect(logShows("theme t250"))
    #expect(!logShows("theme t51"))
    harness.type("g")
    #expect(logShows("theme t51"))
    #expect(!logShows("theme t250"))
    harness.type("G")
    #expect(logShows("theme t250"))
    harness.type("k")
    #expect(!logShows("theme t250") && logShows("theme t249"))
    harness.type("j")
    #expect(logShows("theme t250"))
  }

  @Test func resultsLeadWithWhatHappened() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    let results: [(EffectResult, String)] = [
      (
        .done(.pass(directory: group, identifier: "typed", value: .integer(1), transiting: .file)),
        "passed typed (file)"
      ),
      (
        .done(.pass(directory: group, identifier: "n", value: nil, transiting: .coordinatedFile)),
        "notified n (coordinated-file)"
      ),
      (
        .done(.replayEntry(entry: 3, toDirectory: group, toIdentifier: "b", transiting: .file)),
        "replayed entry 3 to b (file)"
      ),
      (.done(.clearAll(directory: group)), "cleared every mailbox of AppGroup/group.example"),
      (
        .failed(.clear(directory: group, identifier: "a"), "Permission denied"),
        "clear failed: Permission denied (clear of a)"
      ),
      (
        .failed(.pass(directory: group, identifier: "x\u{1B}", value: nil, transiting: .file), "bad\u{7}"),
        "pass failed: bad\\u{7} (pass to \"x\\u{1b}\" (file))"
      ),
    ]
    for (result, text) in results {
      harness.send(.effectFinished(result))
      #expect(harness.state.status?.text == text)
      #expect(harness.state.status?.isError == (result.failure != nil))
    }
  }
}
