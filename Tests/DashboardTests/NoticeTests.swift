import MailboxModel
import Testing
import WormholeVocabulary

@testable import Dashboard

/// The model's notices are said as messages: on the status line while they last, and kept in
/// the message log; an old notice never stays on screen for minutes.
@Suite struct NoticeTests {
  @Test func aNoticeIsShownForAWhileAndKeptInTheLog() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.send(.modelEvents([.notice("the traffic journal of g cannot be read")], at: harness.now))
    #expect(harness.lines[0].contains("the traffic journal of g cannot be read"))
    #expect(harness.state.messageLog.entries.last?.text == "the traffic journal of g cannot be read")
    harness.send(.clock(harness.now + DashboardState.statusMilliseconds + 1))
    #expect(!harness.lines[0].contains("cannot be read"))
    #expect(harness.state.messageLog.entries.contains { $0.text.contains("cannot be read") })
  }

  @Test func aHostileNoticeIsEscaped() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.send(.modelEvents([.notice("bad \u{1b}]2;title\u{7}")], at: harness.now))
    #expect(harness.lines[0].contains(#"\u{1b}]2;title\u{7}"#))
    #expect(!harness.lines.joined().unicodeScalars.contains { $0.value == 0x1b || $0.value == 0x07 })
  }
}

/// An empty traffic pane says why it is empty.
@Suite struct EmptyTrafficTests {
  @Test func aFilterThatHidesEveryEntrySaysSo() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    #expect(harness.shows("no traffic yet"))
    let record = TrafficRecord(
      sequence: 1, milliseconds: harness.now, processIdentifier: 1, sender: "app", transiting: "file",
      kind: .pass, identifier: "a", bytes: 1, outcome: .ok)
    harness.send(.modelEvents([.journalRecords(directory: group, [record], initial: false)], at: harness.now))
    harness.type("<Tab><Tab>/nothing-like-it<Enter>")
    #expect(harness.shows("no traffic entry matches the filter"))
    #expect(!harness.shows("no traffic yet"))
  }
}

/// The rate counts traffic as it happens, not what the journals held when first read.
@Suite struct TrafficRateTests {
  @Test func recordsReadAtStartAreNotCountedAsTrafficNow() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    let records = (1...4).map {
      TrafficRecord(
        sequence: UInt64($0), milliseconds: harness.now - 60_000, processIdentifier: 1, sender: "app",
        transiting: "file", kind: .pass, identifier: "a", bytes: 1, outcome: .ok)
    }
    harness.send(.modelEvents([.journalRecords(directory: group, records, initial: true)], at: harness.now))
    harness.send(.clock(harness.now + 1_000))
    #expect(harness.state.rate.counts.reduce(0, +) == 0)
    let live = TrafficRecord(
      sequence: 5, milliseconds: harness.now + 1_000, processIdentifier: 1, sender: "app", transiting: "file",
      kind: .pass, identifier: "a", bytes: 1, outcome: .ok)
    harness.send(
      .modelEvents([.journalRecords(directory: group, [live], initial: false)], at: harness.now + 1_000))
    #expect(harness.state.rate.counts.reduce(0, +) == 1)
  }
}
