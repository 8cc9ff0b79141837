import KeyedArchive
import MailboxModel
import TerminalScreen
import Testing
import WormholeVocabulary

@testable import Dashboard

/// Every limit of the contents and traffic panes is said on screen: nothing stops silently,
/// nothing is cut without a mark, no column overflows.
@Suite struct ContentsLimitsTests {
  private func numbers(_ count: Int) -> ArchivedValue { .array((0..<count).map { .integer(Int64($0)) }) }

  private func texts(_ lines: [ContentLine]) -> [String] {
    lines.map { String(repeating: " ", count: $0.indent) + $0.pieces.map(\.text).joined() }
  }

  // MARK: Row limits

  @Test func theDiffFindsAnElementAppendedPastTheRowLimit() {
    var harness = DashboardHarness(mailboxes: ["big": numbers(20_000)])
    harness.changeMailbox("big", to: numbers(20_001))
    harness.type("<Tab>vvvv")
    #expect(harness.state.contentsView == .diff)
    let lines = texts(harness.state.contentsLines())
    #expect(!lines.contains { $0.contains("no field changed") })
    #expect(lines.contains("+ root[20000] = 20000"))
  }

  @Test func aDiffWithMoreChangesThanTheLimitSaysHowManyWereNotShown() {
    var harness = DashboardHarness(mailboxes: ["big": numbers(25_000)])
    harness.changeMailbox("big", to: .array((0..<25_000).map { .integer(Int64($0) + 1) }))
    harness.type("<Tab>vvvv")
    let lines = texts(harness.state.contentsLines())
    #expect(lines.last == "… 5,000 more changes not shown (limit 20,000)")
  }

  @Test func theTreeSaysHowManyRowsItDidNotShow() {
    var harness = DashboardHarness(mailboxes: ["big": numbers(25_000)])
    harness.type("<Tab>")
    let lines = texts(harness.state.contentsLines())
    #expect(lines.count == 20_001)
    #expect(lines.last == "… 5,001 more rows not shown (limit 20,000)")
    harness.type("G")
    #expect(harness.shows("more rows not shown"))
  }

  @Test func theJSONViewSaysHowManyLinesItDidNotShow() {
    var harness = DashboardHarness(mailboxes: ["big": numbers(25_000)])
    harness.type("<Tab>v")
    #expect(harness.state.contentsView == .json)
    let lines = texts(harness.state.contentsLines())
    #expect(lines.count == 20_001)
    // `[`, 25,000 numbers and `]`: 25,002 lines, 20,000 shown.
    #expect(lines.last == "… 5,002 more lines not shown (limit 20,000)")
    var small = DashboardHarness(mailboxes: ["small": numbers(3)])
    small.type("<Tab>v")
    #expect(texts(small.state.contentsLines()) == ["[", "  0,", "  1,", "  2", "]"])
  }

  // MARK: Hex

  @Test(arguments: [(120, 30), (80, 24), (200, 40)])
  func theHexViewShowsWholeRowsAtEveryWidth(width: Int, height: Int) {
    let text = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 4)
    var harness = DashboardHarness(width: width, height: height, mailboxes: ["hex": .string(text)])
    harness.type("<Tab>vv")
    #expect(harness.state.contentsView == .hex)
    let lines = texts(harness.state.contentsLines())
    let pane = DashboardLayout(width: width, height: height).contents
    for line in lines.prefix(5) {
      #expect(TerminalWidth.columns(of: line) <= pane.width - 1, "\(line)")
      #expect(harness.shows(line), "\(harness)")
    }
    let perRow = HexDump.bytesPerRow(columns: pane.width - 1)
    #expect(perRow >= 4 && (perRow == 4 || perRow % 8 == 0))
    #expect(HexDump.bytesPerRow(columns: 200) >= 32)
  }

  // MARK: Values too large to keep

  @Test func aMailboxLargerThanTheWatcherKeepsSaysSoInTheJSONView() {
    var harness = DashboardHarness()
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(group),
          .directoryScanned(
            group, mailboxes: ["huge": .file(bytes: nil, size: 2_000_000, modifiedNanoseconds: 1)],
            initial: true),
        ], at: harness.now))
    harness.type("<Tab>v")
    let lines = texts(harness.state.contentsLines())
    #expect(!lines.contains("null"))
    if let version = harness.state.selectedMailbox?.current {
      #expect(harness.state.copyRefusal(for: version)?.contains("too large to show") == true)
    }
    #expect(
      lines.contains { $0.contains("too large to show") && $0.contains("2.0 MB") && $0.contains("1.0 MB") })
  }

  // MARK: Cut with a mark

  @Test func longDirectoryNamesKeepTheirDistinguishingEnd() {
    let stem = "/w/AppGroup/group.com.example.a-very-long-application-group-name-indeed"
    var harness = DashboardHarness(width: 80, height: 24)
    for name in [stem + ".one", stem + ".two"] {
      harness.send(
        .modelEvents(
          [
            .directoryAppeared(FileName(name)),
            .mailboxChanged(directory: FileName(name), identifier: "m", archive(.integer(1))),
          ],
          at: harness.now))
    }
    let rows = harness.lines.filter { $0.contains("▾") }
    #expect(rows.count == 2)
    #expect(rows.allSatisfy { $0.contains("…") })
    #expect(rows.contains { $0.contains(".one") } && rows.contains { $0.contains(".two") })
  }

  @Test func aLongIdentifierLeavesTheViewTabsOnScreen() {
    let identifier = FileName(String(repeating: "x", count: 247))
    var harness = DashboardHarness(mailboxes: [identifier: .integer(1)])
    harness.type("<Tab>")
    let title = harness.lines[1]
    #expect(title.contains("[tree] json hex history diff"), "\(harness)")
    #expect(title.contains("x…"))
  }

  @Test func aDeeplyNestedValueIsNeverABlankRow() {
    var value: ArchivedValue = .integer(42)
    for _ in 0..<500 { value = .array([value]) }
    var harness = DashboardHarness(mailboxes: ["deep": value])
    harness.type("<Tab>G")
    let layout = DashboardLayout(width: 100, height: 30)
    let row = layout.contents.y + 2 + harness.state.contentsCursor - harness.state.contentsScroll
    let text = harness.lines[row].split(separator: "│").last.map(String.init) ?? ""
    #expect(text.contains("…(depth "), "\(harness)")
    // The JSON view of a value 60 deep: the innermost value, 60 lines down.
    value = .integer(42)
    for _ in 0..<60 { value = .array([value]) }
    harness = DashboardHarness(mailboxes: ["deep": value])
    harness.type("<Tab>vg" + String(repeating: "j", count: 60))
    #expect(harness.state.contentsView == .json)
    #expect(harness.state.contentsCursor == 60)
    let jsonRow = layout.contents.y + 2 + harness.state.contentsCursor - harness.state.contentsScroll
    #expect(harness.lines[jsonRow].contains("…(depth "), "\(harness)")
  }

  // MARK: Sizes

  @Test func sizesFitTheirColumnUpToTheLargestFile() {
    #expect(Formatting.size(1_000_000_000_000_000) == "1.0 PB")
    #expect(Formatting.size(2_500_000_000_000) == "2.5 TB")
    #expect(Formatting.size(999_960) == "1.0 MB")
    #expect(Formatting.size(999) == "999 B")
    var bytes = 1
    while bytes < Int.max / 10 {
      for value in [bytes, bytes * 5, bytes * 10 - 1] {
        #expect(Formatting.size(value).count <= 6, "\(value): \(Formatting.size(value))")
      }
      bytes *= 10
    }
    #expect(Formatting.size(Int.max).count <= 6)
  }

  // MARK: Traffic columns

  @Test(arguments: [120, 100, 80])
  func theTransitingTypeStaysInTheTrafficPane(width: Int) {
    var harness = DashboardHarness(width: width, height: 24, mailboxes: ["a": .integer(1)])
    let records = [
      TrafficRecord(
        sequence: 1, milliseconds: harness.now, processIdentifier: 1, sender: "app",
        transiting: "coordinated-file", kind: .notify, identifier: "ping", bytes: 0, outcome: .ok),
      TrafficRecord(
        sequence: 2, milliseconds: harness.now, processIdentifier: 1, sender: "app",
        transiting: "session-message", kind: .notify, identifier: "pong", bytes: 0, outcome: .ok),
    ]
    harness.send(.modelEvents([.journalRecords(directory: group, records, initial: false)], at: harness.now))
    let rows = harness.lines
    #expect(rows.contains { $0.contains("type") && $0.contains("identifier") }, "\(harness)")
    #expect(rows.contains { $0.contains("ping") && $0.contains("coord") }, "\(harness)")
    #expect(rows.contains { $0.contains("pong") && $0.contains("msg") }, "\(harness)")
  }

  @Test func shortTransitingNamesAreDistinct() {
    let short = TransitingType.allCases.map { TrafficPaneView.shortName(of: $0.rawValue) }
    #expect(short == ["file", "coord", "ctx", "msg", "xfer"])
    #expect(TrafficPaneView.shortName(of: "carrier-pigeon").count <= 5)
  }

  // MARK: Times

  @Test func timesThatAreNotTodayShowTheirDate() {
    let now: Int64 = 1_764_500_000_000  // 2025-11-30 10:53:20 UTC
    #expect(Formatting.time(now - 1_000, now: now) == "10:53:19.000")
    #expect(Formatting.time(0, now: now) == "1970-01-01")
    #expect(Formatting.time(253_402_300_799_000, now: now) == "9999-12-31")
    #expect(Formatting.time(now - 86_400_000, now: now) == "11-29 10:53")
    #expect(Formatting.time(-1, now: now) == "1969-12-31")
  }

  @Test func trafficIsInArrivalOrderAndADoubtfulTimeIsMarked() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    let future: Int64 = 253_402_300_799_000
    let records = [
      TrafficRecord(
        sequence: 1, milliseconds: future, processIdentifier: 1, sender: "liar", transiting: "file",
        kind: .notify, identifier: "future", bytes: 0, outcome: .ok),
      TrafficRecord(
        sequence: 2, milliseconds: 0, processIdentifier: 1, sender: "liar", transiting: "file",
        kind: .notify, identifier: "epoch", bytes: 0, outcome: .ok),
      TrafficRecord(
        sequence: 3, milliseconds: harness.now, processIdentifier: 1, sender: "app", transiting: "file",
        kind: .notify, identifier: "honest", bytes: 0, outcome: .ok),
    ]
    harness.send(.modelEvents([.journalRecords(directory: group, records, initial: false)], at: harness.now))
    #expect(harness.state.model.traffic.map(\.identifier) == ["future", "epoch", "honest"])
    let rows = harness.lines
    #expect(rows.contains { $0.contains("9999-12-31?") && $0.contains("future") }, "\(harness)")
    #expect(rows.contains { $0.contains("1970-01-01?") && $0.contains("epoch") }, "\(harness)")
    #expect(rows.contains { $0.contains("honest") && !$0.contains("?") }, "\(harness)")
  }

  // MARK: Unreadable mailboxes

  @Test func anUnreadableMailboxIsShownAsSuchAndNotCountedPresent() {
    var harness = DashboardHarness()
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(group),
          .directoryScanned(
            group,
            mailboxes: [
              "fifo": .unreadable("it is not a regular file"), "fine": archive(.integer(1)),
            ], initial: true),
        ], at: harness.now))
    #expect(harness.state.presentCounts[group] == 1)
    #expect(harness.state.model.directories[group]?.unreadableCount == 1)
    #expect(
      harness.shows("1 present, 1 unreadable") || harness.lines[2].contains("1 unreadable"), "\(harness)")
    // The first mailbox, the fifo, is selected.
    #expect(harness.state.selection == .mailbox(directory: group, identifier: "fifo"))
    let header = harness.lines[2]
    #expect(header.contains("unreadable: it is not a regular file"), "\(harness)")
    #expect(!header.contains("cleared"), "\(harness)")
  }
}
