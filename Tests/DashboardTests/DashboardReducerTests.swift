import Dashboard
import KeyedArchive
import MailboxModel
import MailboxWatcher
import TerminalInput
import Testing
import WormholeVocabulary

@Suite struct DashboardReducerTests {
  @Test func anEmptyHomeSaysSoAndOffersToPass() {
    let harness = DashboardHarness()
    #expect(harness.shows("no wormhole directory yet"))
    #expect(harness.shows("p pass"))
  }

  @Test func mailboxesAppearUnderTheirDirectoryWithSummaryAndSize() {
    var harness = DashboardHarness(mailboxes: [
      "button": .dictionary([.init(key: .string("count"), value: .integer(3))])
    ])
    #expect(harness.shows("▾ AppGroup/group.example"))
    #expect(harness.shows("button"))
    #expect(harness.shows("{count: 3}"))
    harness.type("j")
    #expect(harness.state.selection == .mailbox(directory: group, identifier: "button"))
    #expect(harness.shows("Contents button"))
    #expect(harness.shows("count: 3"))
  }

  @Test func canonicallyEquivalentIdentifiersAreTwoRows() {
    var harness = DashboardHarness(mailboxes: ["\u{E9}": .integer(1), "e\u{301}": .integer(2)])
    #expect(harness.state.treeRowCount == 3)
    let first = harness.state.selectedMailbox?.current.map { DecodedMessage(decoding: $0).json }
    harness.type("j")
    let second = harness.state.selectedMailbox?.current.map { DecodedMessage(decoding: $0).json }
    #expect(Set([first, second]) == Set(["1", "2"]))
  }

  @Test func namesThatAreNotUTF8AreListedEscaped() {
    let harness = DashboardHarness(mailboxes: [FileName(bytes: [0x61, 0xFF]): .integer(1)])
    #expect(harness.shows("\"a\\x{ff}\""))
  }

  @Test func passFormChecksJSONAsTypedAndPassesOnEnter() {
    var harness = DashboardHarness(mailboxes: ["button": .integer(1)])
    harness.type("jp")
    guard case .pass(let form)? = harness.state.overlay else {
      Issue.record("p did not open the pass form")
      return
    }
    #expect(form.identifier.text == "button")
    harness.type("{\"a\":")
    #expect(harness.shows("value: not valid JSON"))
    harness.type("<Enter>")
    #expect(harness.effects.isEmpty)
    harness.type("1}<Enter>")
    #expect(
      harness.effects == [
        .pass(
          directory: group, identifier: "button",
          value: .dictionary([.init(key: .string("a"), value: .integer(1))]),
          transiting: .file)
      ])
    #expect(harness.state.overlay == nil)
  }

  @Test func clearAsksFirstAndEscapeCancels() {
    var harness = DashboardHarness(mailboxes: ["button": .integer(1)])
    harness.type("jd")
    #expect(harness.shows("Clear button?"))
    harness.type("<Esc>")
    #expect(harness.effects.isEmpty)
    harness.type("dy")
    #expect(harness.effects == [.clear(directory: group, identifier: "button")])
  }

  @Test func readOnlyRefusesWritesAndSaysWhy() {
    var harness = DashboardHarness(readOnly: true, mailboxes: ["button": .integer(1)])
    harness.type("jdp")
    #expect(harness.state.overlay == nil)
    #expect(harness.effects.isEmpty)
    #expect(harness.shows("read-only"))
    harness.type("?")
    #expect(harness.shows("disabled: read-only"))
  }

  @Test func freezingHoldsChangesAndCountsThem() {
    var harness = DashboardHarness(mailboxes: ["button": .integer(1)])
    harness.type("f")
    harness.changeMailbox("button", to: .integer(2))
    harness.changeMailbox("button", to: .integer(3))
    #expect(harness.shows("2 new"))
    #expect(harness.state.model.mailbox("button", in: group)?.versionCount == 1)
    harness.type("f")
    #expect(harness.state.model.mailbox("button", in: group)?.versionCount == 3)
    #expect(!harness.shows("FROZEN"))
  }

  @Test func filterKeepsMatchingMailboxesAndBangInverts() {
    var harness = DashboardHarness(mailboxes: [
      "alpha": .integer(1), "beta": .integer(2), "gamma": .integer(3),
    ])
    harness.type("/^(al|be)")
    #expect(harness.state.treeRowCount == 3)
    harness.type("<Esc>")
    #expect(harness.state.treeRowCount == 4)
    harness.type("/!^al<Enter>")
    #expect(harness.state.treeRowCount == 3)
    #expect(!harness.shows("alpha"))
  }

  @Test func aBadRegularExpressionIsShownNotApplied() {
    var harness = DashboardHarness(mailboxes: ["alpha": .integer(1)])
    harness.type("/(")
    #expect(harness.shows("not a regular expression"))
    #expect(harness.state.treeRowCount == 2)
  }

  @Test func recencySortPutsTheLastChangedFirst() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1), "b": .integer(2), "c": .integer(3)])
    harness.type("s")
    #expect(harness.state.sort == .recency)
    harness.changeMailbox("b", to: .integer(5))
    #expect(harness.state.node(atRow: 1) == .mailbox(directory: group, identifier: "b"))
    harness.changeMailbox("c", to: .integer(5))
    #expect(harness.state.node(atRow: 1) == .mailbox(directory: group, identifier: "c"))
    #expect(harness.state.node(atRow: 2) == .mailbox(directory: group, identifier: "b"))
  }

  @Test func selectionStaysOnItsMailboxWhenRowsMove() {
    var harness = DashboardHarness(mailboxes: ["m": .integer(1), "z": .integer(2)])
    harness.type("jj")
    #expect(harness.state.selection == .mailbox(directory: group, identifier: "z"))
    harness.changeMailbox("a", to: .integer(0))
    #expect(harness.state.selection == .mailbox(directory: group, identifier: "z"))
    #expect(harness.state.selectedRow == 3)
  }

  @Test func aTinyTerminalGetsTheTooSmallScreenAndStillQuits() {
    var harness = DashboardHarness(width: 30, height: 10, mailboxes: ["a": .integer(1)])
    #expect(harness.shows("terminal too small"))
    #expect(harness.shows("30x10"))
    harness.type("q")
    #expect(harness.effects == [.quit])
  }

  @Test func historyDiffAndSparklineFollowVersions() {
    var harness = DashboardHarness(mailboxes: [
      "n": .dictionary([.init(key: .string("v"), value: .integer(1))])
    ])
    for value in [4, 2, 8] {
      harness.changeMailbox("n", to: .dictionary([.init(key: .string("v"), value: .integer(Int64(value)))]))
    }
    harness.type("j<Tab>")
    #expect(harness.state.focus == .contents)
    #expect(harness.state.sparklineSeries() == nil)  // the cursor is on the dictionary
    harness.type("j")
    #expect(harness.state.sparklineSeries()?.values == [1, 4, 2, 8])
    #expect(harness.shows("root.v ▁▄▂█"))
    harness.type("vvv")
    #expect(harness.state.contentsView == .history)
    harness.type("v")
    #expect(harness.state.contentsView == .diff)
    #expect(harness.shows("~ root.v: 2 → 8"))
  }

  @Test func theHeadersAgeKeepsItsPlaceBeforeTheSparklineOnANarrowPane() {
    // At 80 columns the contents pane is about 48 wide: the sparkline used to take the right end
    // whatever it cut, and the header ended at "modified 12:00:00 (".
    var harness = DashboardHarness(width: 80, height: 24, mailboxes: ["n": .dictionary([])])
    for value in [4, 2, 8] {
      harness.changeMailbox("n", to: .dictionary([.init(key: .string("v"), value: .integer(Int64(value)))]))
    }
    harness.type("j<Tab>j")
    #expect(harness.state.sparklineSeries() != nil)
    #expect(harness.shows(" ago)"))
  }

  @Test func treeCollapsesAndExpandsWithEnter() {
    var harness = DashboardHarness(mailboxes: [
      "n": .dictionary([.init(key: .string("inner"), value: .array([.integer(1), .integer(2)]))])
    ])
    harness.type("j<Tab>")
    #expect(harness.shows("[1]: 2"))
    harness.type("j<Enter>")
    #expect(!harness.shows("[1]: 2"))
    harness.type("<Enter>")
    #expect(harness.shows("[1]: 2"))
  }

  @Test func replayFromTrafficIsAFormThatConfirms() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.changeMailbox("a", to: .integer(2))
    harness.send(.clock(harness.now + 5_000))  // the pairing window closes: changed-without-record
    #expect(harness.shows("unrecorded"))
    harness.type("<Tab><Tab>r")
    guard case .replay? = harness.state.overlay else {
      Issue.record("r did not open the replay form")
      return
    }
    harness.type("<C-u>b<Enter>")
    guard case .replayEntry(_, let directory, let identifier, let transiting)? = harness.effects.last else {
      Issue.record("Enter did not replay: \(harness.effects)")
      return
    }
    #expect(directory == group && identifier == "b" && transiting == .file)
  }

  @Test func commandLineRunsActionsByName() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.type(":sort activity<Enter>")
    #expect(harness.state.sort == .activity)
    harness.type(":pass x [1,2]<Enter>")
    #expect(
      harness.effects == [
        .pass(
          directory: group, identifier: "x", value: .array([.integer(1), .integer(2)]), transiting: .file)
      ])
    harness.type(":nonsense<Enter>")
    #expect(harness.shows("unknown command :nonsense"))
    harness.type(":q<Enter>")
    #expect(harness.state.isQuitting)
  }

  @Test func hostileNamesReachTheScreenEscaped() {
    var harness = DashboardHarness(mailboxes: ["evil\u{1B}[2J\u{202E}name": .string("\u{1B}]0;title\u{7}")])
    harness.type("j")
    for line in harness.lines {
      #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E })
    }
    #expect(harness.shows("\"evil\\u{1b}[2J\\u{202e}name\""))  // the contents title
  }

  @Test func wideAndEmojiNamesKeepRowsAligned() {
    let harness = DashboardHarness(mailboxes: [
      "日本語": .integer(1), "👍🏽ok": .integer(2), "e\u{301}x": .integer(3),
    ])
    let screen = harness.screen
    for row in 0..<screen.height {
      var columns = 0
      for column in 0..<screen.width { columns += 1; _ = screen[row, column] }
      #expect(columns == screen.width)
    }
    #expect(harness.shows("日本語"))
  }

  @Test func aClickFocusesThePaneAndSelectsTheRowAndTheWheelScrolls() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1), "b": .integer(2), "c": .integer(3)])
    // Row 0 is the status line, row 1 the tree's title, row 2 the branch, rows 3-5 the mailboxes.
    harness.send(.click(row: 4, column: 5))
    #expect(harness.state.focus == .mailboxes)
    #expect(harness.state.selection == .mailbox(directory: group, identifier: "b"))
    harness.send(.wheel(up: false, row: 4, column: 5))
    #expect(harness.state.selection == .mailbox(directory: group, identifier: "c"))
    harness.send(.click(row: 20, column: 60))
    #expect(harness.state.focus == .traffic)
  }

  @Test func presentCountsFollowChangesRemovalsAndUnreadableFiles() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1), "b": .integer(2)])
    func agrees() -> Bool {
      harness.state.presentCounts[group] == harness.state.model.directories[group]?.presentCount
    }
    harness.changeMailbox("c", to: .integer(3))
    #expect(harness.state.presentCounts[group] == 3 && agrees())
    harness.send(.modelEvents([.mailboxRemoved(directory: group, identifier: "a")], at: harness.now + 1))
    #expect(harness.state.presentCounts[group] == 2 && agrees())
    harness.send(
      .modelEvents(
        [.mailboxChanged(directory: group, identifier: "d", .unreadable("Permission denied"))],
        at: harness.now + 2))
    // Unreadable: on disk, but not present.
    #expect(harness.state.presentCounts[group] == 2 && agrees())
    harness.send(.modelEvents([.mailboxRemoved(directory: group, identifier: "zzz")], at: harness.now + 3))
    #expect(agrees())
  }

  @Test func replayingFromHistoryTakesTheVersionUnderTheCursor() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.changeMailbox("a", to: .integer(2))
    let versions = harness.state.selectedVersions
    harness.type("<Tab>r")  // the tree view: the newest version
    guard case .replay(let newest)? = harness.state.overlay else {
      Issue.record("r did not open the replay form")
      return
    }
    #expect(newest.source == .version(directory: group, identifier: "a", serial: versions[0].serial))
    harness.type("<Esc>vvvj")  // history, one version back
    #expect(harness.state.contentsView == .history)
    harness.type("r")
    guard case .replay(let older)? = harness.state.overlay else {
      Issue.record("r did not open the replay form from history")
      return
    }
    #expect(older.source == .version(directory: group, identifier: "a", serial: versions[1].serial))
  }

  @Test func theContentsCursorStaysOnALineWhenTheSelectedValueShrinks() {
    var harness = DashboardHarness(mailboxes: [
      "a": .array([.integer(1), .integer(2), .integer(3)]), "b": .integer(0),
    ])
    harness.type("<Tab>G")
    #expect(harness.state.contentsCursor == 3)
    harness.changeMailbox("b", to: .integer(1))  // another mailbox: the cursor stays
    #expect(harness.state.contentsCursor == 3)
    harness.changeMailbox("a", to: .integer(9))  // the selected one shrinks to one line
    #expect(harness.state.contentsCursor == 0)
  }
}
