import Dashboard
import KeyedArchive
import MailboxModel
import SnapshotSupport
import TerminalInput
import Testing
import WormholeVocabulary

private let snapshots = snapshotDirectory()

/// The watch of `desk`'s group directory, under the harness's home.
private let deskWatchGroup: FileName = "/w/pairs/desk/watch/AppGroup/group.example"

/// `desk` (its devices running as told) and `travel` (neither running), under `/w`.
private func sessionPairs(phone: Bool = true, watch: Bool = true) -> [PairSnapshot] {
  [
    PairSnapshot(
      name: "travel", home: "/w", phone: .init(role: .phone), watch: .init(role: .watch)),
    PairSnapshot(
      name: "desk", home: "/w", phone: .init(role: .phone, runningPID: phone ? 4242 : nil),
      watch: .init(role: .watch, runningPID: watch ? 4343 : nil)),
  ]
}

/// A dashboard on the watch of desk's group (a mailbox `score`) and the two pairs. Rows: the
/// directory, `score`, the pairs' branch, desk, its phone, its watch, travel, its phone, its watch.
private func sessionHarness(
  phone: Bool = true, watch: Bool = true, width: Int = 100, height: Int = 30, readOnly: Bool = false
) -> DashboardHarness {
  var harness = DashboardHarness(width: width, height: height, readOnly: readOnly)
  harness.send(
    .modelEvents(
      [
        .directoryAppeared(deskWatchGroup),
        .directoryScanned(deskWatchGroup, mailboxes: ["score": archive(.integer(3))], initial: true),
      ], at: harness.now))
  harness.send(.pairs(sessionPairs(phone: phone, watch: watch)))
  harness.effects = []
  return harness
}

/// The sender the forms default to for desk's `role`, in the group on screen.
private func deskSender(_ role: PairSnapshot.Role, pair: String = "desk") -> SessionSend.Sender {
  SessionSend.Sender(home: "/w", pair: pair, role: role, applicationGroup: "group.example")
}

private func passForm(_ harness: DashboardHarness) -> PassForm? {
  guard case .pass(let form)? = harness.state.overlay else { return nil }
  return form
}

private func replayForm(_ harness: DashboardHarness) -> ReplayForm? {
  guard case .replay(let form)? = harness.state.overlay else { return nil }
  return form
}

@Suite struct SessionPassFormTests {
  @Test func aMailboxInADevicesGroupSendsFromThatDevice() throws {
    var harness = sessionHarness()
    harness.type("p")
    var form = try #require(passForm(harness))
    #expect(form.transiting == .file)
    #expect(form.session.pair?.name == "desk")
    #expect(form.session.role == .watch)
    #expect(form.session.applicationGroup == "group.example")
    harness.type("7<Tab><Right><Right><Right>")
    form = try #require(passForm(harness))
    #expect(form.transiting == .sessionMessage)
    #expect(form.fields == [.pair, .role, .identifier, .value, .transiting, .replyTimeout])
    #expect(harness.shows("◂ watch ▸ to the phone"), "\(harness)")
    #expect(harness.shows("watch → phone of desk: delivered live to the phone"), "\(harness)")
    harness.type("<Enter>")
    #expect(
      harness.effects == [
        .sessionSend(
          SessionSend(
            sender: deskSender(.watch), transiting: .sessionMessage, identifier: "score",
            content: .value(.integer(7))))
      ])
    #expect(harness.state.overlay == nil)
  }

  @Test func aDeviceRowSendsFromThatDeviceAndAPairRowFromItsPhone() throws {
    var harness = sessionHarness()
    harness.type("jjjjp")  // desk's watch
    var form = try #require(passForm(harness))
    #expect(form.transiting == .sessionMessage)
    #expect(form.focus == .identifier)
    #expect(form.session.role == .watch)
    #expect(form.session.applicationGroup == "group.example")  // from the tree
    harness.type("ping<Tab>true<Enter>")
    #expect(
      harness.effects.last
        == .sessionSend(
          SessionSend(
            sender: deskSender(.watch), transiting: .sessionMessage, identifier: "ping",
            content: .value(.boolean(true)))))

    harness = sessionHarness()
    harness.type("jjp")  // desk
    form = try #require(passForm(harness))
    #expect(form.session.pair?.name == "desk")
    #expect(form.session.role == .phone)
    #expect(form.session.applicationGroup == "group.example")  // the watch's: the only one shown
    harness.type("<Esc>jjjp")  // travel: no group on screen
    form = try #require(passForm(harness))
    #expect(form.session.pair?.name == "travel")
    #expect(form.session.applicationGroup == SessionFields.defaultApplicationGroup)
  }

  @Test func theOperatorSwitchesThePairAndTheRole() throws {
    var harness = sessionHarness()
    harness.type("jjjp<S-Tab><S-Tab>")  // desk's phone; focus on the pair
    var form = try #require(passForm(harness))
    #expect(form.focus == .pair)
    #expect(form.session.role == .phone)
    harness.send(.key(.right))
    form = try #require(passForm(harness))
    #expect(form.session.pair?.name == "travel")
    #expect(form.session.applicationGroup == SessionFields.defaultApplicationGroup)  // none on screen
    #expect(
      harness.shows("phone → watch of travel: the watch is not running: session-message will fail 7007"))
    harness.type("<Tab>")
    harness.send(.key(.left))
    form = try #require(passForm(harness))
    #expect(form.session.role == .watch)
    #expect(harness.shows("◂ watch ▸ to the phone"))
    harness.type(" ")  // space switches too
    #expect(passForm(harness)?.session.role == .phone)
    harness.type("<S-Tab>")
    harness.send(.key(.right))  // the pairs wrap around
    #expect(passForm(harness)?.session.pair?.name == "desk")
    harness.type("<Tab><Tab>go<Tab>1<Enter>")
    #expect(
      harness.effects.last
        == .sessionSend(
          SessionSend(
            sender: deskSender(.phone), transiting: .sessionMessage, identifier: "go",
            content: .value(.integer(1)))))
  }

  /// Each type says what it means for the pair as it is, on screen and in the form's meaning.
  @Test(arguments: [
    (TransitingType.sessionMessage, true, "delivered live to the phone"),
    (.sessionMessage, false, "the phone is not running: session-message will fail 7007"),
    (.sessionContext, true, "the phone receives it now; latest value wins"),
    (.sessionContext, false, "queued until the phone runs; only the newest context is delivered"),
    (.sessionFile, true, "delivered to the phone now, in order"),
    (.sessionFile, false, "queued until the phone runs"),
  ])
  func eachTypeSaysWhatItMeansNow(type: TransitingType, phoneRuns: Bool, meaning: String) throws {
    var harness = sessionHarness(phone: phoneRuns, width: 160, height: 40)
    harness.type("jjjjp")  // desk's watch sends to its phone
    let steps = [TransitingType.sessionMessage, .sessionFile, .file, .coordinatedFile, .sessionContext]
    harness.type("<Tab><Tab>" + String(repeating: "<Right>", count: steps.firstIndex(of: type) ?? 0))
    let form = try #require(passForm(harness))
    #expect(form.transiting == type)
    #expect(form.sessionMeaning(pairs: harness.state.pairs).contains { $0.contains(meaning) })
    #expect(harness.shows(meaning), "\(harness)")
    #expect(harness.shows("sent through the running watch (pid 4343)"), "\(harness)")
  }

  @Test func aReplyTimeoutIsCheckedAndCarried() throws {
    var harness = sessionHarness(width: 160, height: 40)
    harness.type("jjjjpping<Tab>1<Tab><Tab>abc")  // the reply timeout field
    var form = try #require(passForm(harness))
    #expect(form.focus == .replyTimeout)
    #expect(form.problem?.hasPrefix("reply timeout: abc is not a number") == true)
    harness.type("<Enter>")
    #expect(harness.effects.isEmpty)
    harness.type("<BS><BS><BS>0")
    #expect(passForm(harness)?.problem?.contains("more than 0") == true)
    harness.type("<BS>2.5")
    form = try #require(passForm(harness))
    #expect(form.problem == nil)
    #expect(harness.shows("then waits 2.5 s for a reply (7012 if none)"), "\(harness)")
    harness.type("<Enter>")
    #expect(
      harness.effects.last
        == .sessionSend(
          SessionSend(
            sender: deskSender(.watch), transiting: .sessionMessage, identifier: "ping",
            content: .value(.integer(1)), replyTimeout: 2.5)))
  }

  @Test func aContextCanBeDeliveredEvenIfIdenticalAndAFileIsATransfer() throws {
    var harness = sessionHarness(phone: false)
    harness.type("jjjjpscore<Tab>3<Tab><Left>")  // session-context
    var form = try #require(passForm(harness))
    #expect(form.transiting == .sessionContext)
    #expect(form.fields.last == .deliversIdentical)
    #expect(harness.shows("an identical context is not delivered again"))
    harness.type("<Tab><Right>")
    form = try #require(passForm(harness))
    #expect(form.session.deliversIdentical)
    #expect(harness.shows("◂ deliver identical ▸"))
    harness.type("<Enter>")
    #expect(
      harness.effects.last
        == .sessionSend(
          SessionSend(
            sender: deskSender(.watch), transiting: .sessionContext, identifier: "score",
            content: .value(.integer(3)), deliversIdentical: true)))

    harness = sessionHarness(phone: false)
    harness.type("jjjjpdoc<Tab>\"x\"<Tab><Right>")  // session-file
    form = try #require(passForm(harness))
    #expect(form.transiting == .sessionFile)
    #expect(form.fields == [.pair, .role, .identifier, .value, .transiting])
    harness.type("<Enter>")
    #expect(
      harness.effects.last
        == .sessionSend(
          SessionSend(
            sender: deskSender(.watch), transiting: .sessionFile, identifier: "doc",
            content: .value(.string("x")))))
  }

  @Test func aSessionTypeNeedsAPairAndAMessage() throws {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.type("p1<Tab><Right><Right><Right>")
    var form = try #require(passForm(harness))
    #expect(form.transiting == .sessionMessage)
    #expect(form.problem?.contains("create one with wormhole-tui pair create NAME") == true)
    #expect(harness.shows("(no pair under the home)"), "\(harness)")
    harness.type("<Enter>")
    #expect(harness.effects.isEmpty)

    harness = sessionHarness()
    harness.type("jjjjpping<Enter>")
    form = try #require(passForm(harness))
    #expect(form.problem?.hasPrefix("value: session-message carries a message") == true)
    #expect(harness.effects.isEmpty)
  }

  @Test func theCommandLinePassesFromTheSelectedDevice() {
    var harness = sessionHarness()
    harness.type("jjj:pass hello \"hi\"<Enter>")  // desk's phone
    #expect(
      harness.effects
        == [
          .sessionSend(
            SessionSend(
              sender: deskSender(.phone), transiting: .sessionMessage, identifier: "hello",
              content: .value(.string("hi"))))
        ])
  }

  @Test func theFileTypesStillPassIntoADirectory() {
    var harness = sessionHarness()
    harness.type("p5<Enter>")
    #expect(
      harness.effects == [
        .pass(directory: deskWatchGroup, identifier: "score", value: .integer(5), transiting: .file)
      ])
  }
}

@Suite struct SessionReplayFormTests {
  @Test func aFileMailboxsVersionReplaysAsASessionMessage() throws {
    var harness = sessionHarness()
    harness.type("<Tab>r")
    var form = try #require(replayForm(harness))
    #expect(form.transiting == .file)
    #expect(form.session.role == .watch)
    let serial = try #require(harness.state.model.mailbox("score", in: deskWatchGroup)?.current?.serial)
    harness.type("<Tab><Right><Right><Right>")
    form = try #require(replayForm(harness))
    #expect(form.transiting == .sessionMessage)
    #expect(form.fields == [.identifier, .transiting, .pair, .role, .replyTimeout])
    #expect(harness.shows("watch → phone of desk: delivered live to the phone"), "\(harness)")
    harness.type("<Enter>")
    #expect(
      harness.effects.last
        == .sessionSend(
          SessionSend(
            sender: deskSender(.watch), transiting: .sessionMessage, identifier: "score",
            content: .version(directory: deskWatchGroup, identifier: "score", serial: serial))))
  }

  /// A transfer stored in the watch's mailbox, journaled as session-file: the form keeps the
  /// type, and the operator re-sends it as a context from the phone.
  @Test func aDeliveredTransferIsResentAsAContext() throws {
    var harness = sessionHarness(watch: false)
    let bytes = try KeyedArchiveEncoder().encodeBytes(.integer(9))
    harness.now += 1_000
    harness.send(
      .modelEvents(
        [
          .mailboxChanged(directory: deskWatchGroup, identifier: "score", archive(.integer(9))),
          .journalRecords(
            directory: deskWatchGroup,
            [
              TrafficRecord(
                sequence: 1, milliseconds: harness.now, processIdentifier: 7, sender: "watch",
                transiting: "session-file", kind: .pass, identifier: "score", bytes: bytes.count, outcome: .ok
              )
            ], initial: false),
        ], at: harness.now))
    harness.send(.clock(harness.now + 5_000))
    let entry = try #require(harness.state.model.traffic.last)
    #expect(entry.kind == .passed)
    harness.effects = []
    harness.type("<Tab><Tab>r")
    var form = try #require(replayForm(harness))
    #expect(form.transiting == .sessionFile)
    #expect(form.source == .entry(entry.id))
    #expect(form.session.role == .watch)
    harness.type("<Tab><Left><Left><Tab><Tab><Right>")  // session-context, from the phone
    form = try #require(replayForm(harness))
    #expect(form.transiting == .sessionContext)
    #expect(form.session.role == .phone)
    #expect(harness.shows("phone → watch of desk: queued until the watch runs"), "\(harness)")
    harness.type("<Enter>")
    #expect(
      harness.effects.last
        == .sessionSend(
          SessionSend(
            sender: deskSender(.phone), transiting: .sessionContext, identifier: "score",
            content: .entry(entry.id))))
  }

  @Test func aSessionSendReportsWhereItWentAndWhatCameBack() {
    var harness = sessionHarness()
    let send = SessionSend(
      sender: deskSender(.watch), transiting: .sessionMessage, identifier: "ping",
      content: .value(.integer(1)),
      replyTimeout: 2)
    #expect(DashboardEffect.sessionSend(send).writes)
    #expect(DashboardEffect.sessionSend(send).verb == "pass")
    harness.send(
      .effectFinished(.done(.sessionSend(send), detail: "delivered to the phone; reply: \"pong\u{1B}\"")))
    let last = harness.state.messageLog.entries.last?.text ?? ""
    #expect(last.hasPrefix("passed ping (session-message, watch → phone of desk): delivered to the phone"))
    #expect(last.contains("reply: \"pong\\u{1b}\""), "\(last)")
    harness.send(
      .effectFinished(
        .failed(
          .sessionSend(send),
          "the counterpart device is not reachable: start it with device run (WCErrorCodeNotReachable 7007)"))
    )
    #expect(harness.state.status?.isError == true)
    #expect(
      harness.state.status?.text.hasPrefix("pass failed: the counterpart device is not reachable") == true)
    #expect(harness.state.status?.text.contains("7007") == true)
  }
}

@Suite struct SessionReadOnlyTests {
  /// Keys that reach a session send, each shown to write when writes are allowed.
  static let paths = [
    "jjjjpping<Tab>1<Enter>",  // pass as session-message from a device row
    "p1<Tab><Right><Right><Enter>",  // session-context from a mailbox's device
    "p1<Tab><Left><Enter>",  // session-file
    "<Tab>r<Tab><Right><Right><Right><Enter>",  // a version replayed as session-message
    "jjj:pass x 1<Enter>",
  ]

  @Test(arguments: paths)
  func everySessionSendIsRefused(keys: String) {
    var writable = sessionHarness()
    writable.type(keys)
    #expect(
      writable.effects.contains {
        if case .sessionSend = $0 { return true }
        return false
      }, "\(keys): \(writable.effects)")

    var readOnly = sessionHarness(readOnly: true)
    readOnly.type(keys)
    #expect(!readOnly.effects.contains { $0.writes }, "\(keys): \(readOnly.effects)")
    #expect(readOnly.state.messageLog.entries.contains { $0.text.hasPrefix("read-only") })
  }
}

@Suite struct SessionFormSnapshotTests {
  @Test(arguments: [(80, 24), (120, 40)])
  func sessionForms(width: Int, height: Int) {
    let size = "\(width)x\(height)"
    var harness = sessionHarness(phone: false, width: width, height: height)
    harness.type("jjjjpping<Tab>{\"beat\":72}<Tab><Tab>2")
    expectSnapshot(harness.screen, named: "pass-session-message-\(size)", in: snapshots)
    harness.type("<Esc>kkkk<Tab>r<Tab><Left><Left><Left>")
    expectSnapshot(harness.screen, named: "replay-session-context-\(size)", in: snapshots)
  }
}
