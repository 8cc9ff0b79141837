import ArchivedValues
import Dashboard
import FleetModel
import FleetProtocol
import KeyedArchive
import MailboxModel
import Testing
import WormholeVocabulary

/// A bridge's mailbox payload with a journal sequence, a change time and a summary, for the
/// fleet dashboard's remaining gaps (issue 15).
private enum Payload {
  static func mailbox(
    _ machine: String, _ identifier: String, _ value: ArchivedValue, seq: Int? = nil,
    changed: String = "2025-11-30T10:00:00.000Z", directory: String = "/home/ci/.wormhole"
  ) -> FleetInput {
    var input = Bridged.mailbox(machine, directory, identifier, value)
    var text = String(decoding: input.payload, as: UTF8.self)
    if let seq { text = text.replacingOccurrences(of: "\"seq\":null", with: "\"seq\":\(seq)") }
    text = text.replacingOccurrences(
      of: "\"last_change\":\"2025-11-30T10:00:00.000Z\"", with: "\"last_change\":\"\(changed)\"")
    input.payload = Array(text.utf8)
    return input
  }
}

/// The fleet dashboard's remaining gaps: a record replayed from the bridge's own history, the
/// `p` form on a bridged machine, `s` and `/` on the fleet's branch.
@Suite struct FleetDashTests {
  static func version(serial: UInt64, seq: UInt64?, bytes: [UInt8]? = [1, 2, 3], at seconds: Int64)
    -> MailboxVersion
  {
    MailboxVersion(
      serial: serial, bytes: bytes, size: bytes?.count ?? 2_000_000,
      modifiedNanoseconds: seconds * 1_000_000_000,
      observedMilliseconds: seconds * 1000, sequence: seq)
  }

  static func entry(
    _ seq: UInt64, _ identifier: FileName, kind: TrafficEntryKind = .passed, serial: UInt64? = nil
  )
    -> TrafficEntry
  {
    TrafficEntry(
      id: seq, milliseconds: Int64(seq) * 1000, kind: kind, directory: "/d", identifier: identifier, size: 3,
      sequence: seq, versionSerial: serial)
  }

  // MARK: Replay of a record from the bridge's history (the pure part the bridge runs)

  @Test func aRecordIsResolvedFromTheKeptVersionsOrTheNearestIsNamed() {
    let mailbox = Mailbox(
      identifier: "score",
      current: Self.version(serial: 8, seq: 8, at: 1_764_614_645),
      history: [
        Self.version(serial: 3, seq: 3, at: 100), Self.version(serial: 5, seq: 5, at: 200),
        // A version found at start-up carries no sequence: its entry names its serial.
        Self.version(serial: 6, seq: nil, at: 300), Self.version(serial: 7, seq: 7, bytes: nil, at: 400),
      ], versionCount: 9, lastChange: 0, error: nil)
    let traffic = [
      Self.entry(6, "score", serial: 6), Self.entry(10, "score", kind: .cleared), Self.entry(11, "other"),
    ]
    func resolve(_ record: UInt64, _ box: Mailbox? = mailbox) -> Result<
      MailboxVersion, KeptRecordVersion.Refusal
    > {
      KeptRecordVersion.resolve(
        record: record, identifier: "score", mailbox: box, traffic: traffic, historyDepth: 64)
    }
    #expect((try? resolve(5).get())?.serial == 5)
    #expect((try? resolve(8).get())?.serial == 8)
    #expect((try? resolve(6).get())?.serial == 6)
    func reason(_ result: Result<MailboxVersion, KeptRecordVersion.Refusal>) -> String {
      guard case .failure(let refusal) = result else { return "replayed" }
      return refusal.reason
    }
    // Gone: the nearest kept one by sequence is named, with how to replay it.
    let gone = reason(resolve(4))
    #expect(gone.contains("the version record 4 wrote is no longer kept"), "\(gone)")
    #expect(gone.contains("the bridge keeps 64 earlier versions of a mailbox"), "\(gone)")
    #expect(gone.contains("nearest kept: record 3 (3 bytes, modified 1970-01-01T00:01:40.000Z)"), "\(gone)")
    #expect(gone.contains("replay_of 3 replays it"), "\(gone)")
    #expect(
      reason(resolve(9)).contains("nearest kept: record 8 (3 bytes, modified 2025-12-01T18:44:05.000Z)"))
    #expect(reason(resolve(10)).contains("record 10 (cleared score) wrote no message to replay"))
    #expect(reason(resolve(11)).contains("record 11 wrote other, not score"))
    #expect(reason(resolve(7)).contains("too large for the bridge to keep its bytes"))
    #expect(reason(resolve(4, nil)).hasSuffix("and score has no kept version"))
  }

  /// A replay of the current version adds no version (the bytes are the same): a replay of that
  /// replay's record is the version of the record it replayed.
  @Test func aRecordThatReplayedAnotherResolvesToThatOnesVersion() {
    let mailbox = Mailbox(
      identifier: "score", current: Self.version(serial: 8, seq: 8, at: 1_764_614_645),
      history: [Self.version(serial: 5, seq: 5, at: 200)], versionCount: 2, lastChange: 0, error: nil)
    var replay = Self.entry(12, "score", kind: .replayed)
    replay.replayOf = 8
    var replayOfReplay = Self.entry(13, "score", kind: .replayed)
    replayOfReplay.replayOf = 12
    let traffic = [replay, replayOfReplay]
    for record: UInt64 in [12, 13] {
      let resolved = KeptRecordVersion.resolve(
        record: record, identifier: "score", mailbox: mailbox, traffic: traffic, historyDepth: 64)
      #expect((try? resolved.get())?.serial == 8, "\(record): \(resolved)")
    }
    // A chain is followed so far only.
    let bounded = KeptRecordVersion.resolve(
      record: 13, identifier: "score", mailbox: mailbox, traffic: traffic, historyDepth: 64,
      replayChainLimit: 1)
    #expect((try? bounded.get()) == nil)
  }

  // MARK: r on a remote traffic entry whose version this dashboard no longer keeps

  @Test func aRemoteEntryWhoseVersionIsGoneIsReplayedFromTheBridgesHistory() {
    var harness = DashboardHarness(width: 140, height: 30, mailboxes: ["local": .string("x")])
    harness.sendFleet(
      [
        Bridged.presence("ci-3", "online"), Bridged.info("ci-3", allowed: true, reason: nil),
        Payload.mailbox("ci-3", "counter", .integer(41), seq: 9),
        // Record 3 of counter: a version this dashboard never saw.
        Bridged.traffic("ci-3", "/home/ci/.wormhole", "counter"),
      ], at: harness.now)
    harness.type("<Tab><Tab>kr")
    #expect(
      harness.remoteWrites == [
        RemoteWrite(
          .replayRecord, machine: "ci-3", directory: "/home/ci/.wormhole", identifier: "counter", replayOf: 3)
      ], "\(harness.effects) \(harness)")
    #expect(harness.remoteWrites.first?.description == "remote replay of record 3 of counter on ci-3")
    // Read-only refuses it as every write.
    var readOnly = DashboardHarness(
      width: 140, height: 30, readOnly: true, mailboxes: ["local": .string("x")])
    readOnly.sendFleet(
      [
        Bridged.presence("ci-3", "online"), Bridged.info("ci-3", allowed: true, reason: nil),
        Bridged.traffic("ci-3", "/home/ci/.wormhole", "counter"),
      ], at: readOnly.now)
    readOnly.type("<Tab><Tab>kr")
    #expect(readOnly.remoteWrites.isEmpty)
    #expect(readOnly.state.status?.text.hasPrefix("read-only: ") == true, "\(readOnly)")
  }

  // MARK: The p form on a bridged machine

  static func writableFleet(_ harness: inout DashboardHarness) {
    harness.sendFleet(
      [
        Bridged.presence("ci-3", "online"), Bridged.info("ci-3", allowed: true, reason: nil),
        Payload.mailbox("ci-3", "button", .string("tap")),
        Payload.mailbox("ci-3", "counter", .integer(41)),
        Payload.mailbox("ci-3", "status", .string("idle"), directory: "/srv/other"),
      ], at: harness.now)
  }

  /// ``writableFleet(_:)`` with ci-3's `button` selected.
  static func writableFleetWithButtonSelected(_ harness: inout DashboardHarness) {
    writableFleet(&harness)
    let button = TreeNodeID.remoteMailbox(
      machine: "ci-3", directory: "/home/ci/.wormhole", identifier: "button")
    harness.type("g" + String(repeating: "j", count: row(of: button, in: harness.state) ?? 0))
    #expect(harness.state.selection == button)
  }

  /// The row of `node` in the tree, if it is shown.
  static func row(of node: TreeNodeID, in state: DashboardState) -> Int? {
    (0..<state.treeRowCount).first { state.node(atRow: $0) == node }
  }

  @Test func thePassFormOnABridgedMailboxPassesOnThatMachine() {
    var harness = DashboardHarness(width: 140, height: 30, mailboxes: ["local": .string("x")])
    Self.writableFleet(&harness)
    let counter = TreeNodeID.remoteMailbox(
      machine: "ci-3", directory: "/home/ci/.wormhole", identifier: "counter")
    guard let row = Self.row(of: counter, in: harness.state) else {
      Issue.record("no counter row: \(harness)")
      return
    }
    harness.type("g")
    harness.type(String(repeating: "j", count: row))
    #expect(harness.state.selection == counter, "\(harness)")
    harness.type("p")
    guard case .pass(let form)? = harness.state.overlay else {
      Issue.record("no pass form: \(harness)")
      return
    }
    #expect(form.remote == PassForm.RemoteTarget(machine: "ci-3", refusal: nil))
    #expect(form.directory == "/home/ci/.wormhole" && form.identifier.text == "counter")
    #expect(form.fields == [.directory, .identifier, .value])
    #expect(harness.shows("Pass a message on ci-3"), "\(harness)")
    // The machine's own directories, its whole paths.
    #expect(form.directories == ["/home/ci/.wormhole", "/srv/other"])
    #expect(harness.shows("◂ /home/ci/.wormhole ▸"), "\(harness)")
    harness.type("42<Enter>")
    #expect(harness.state.overlay == nil, "\(harness)")
    #expect(
      harness.remoteWrites == [
        RemoteWrite(
          .pass, machine: "ci-3", directory: "/home/ci/.wormhole", identifier: "counter", value: .integer(42))
      ], "\(harness.effects)")
    // On the machine's row: its first directory, an identifier to type.
    harness.effects = []
    harness.type("g")
    harness.type(String(repeating: "j", count: Self.row(of: .machine("ci-3"), in: harness.state) ?? 0) + "p")
    guard case .pass(let onMachine)? = harness.state.overlay else {
      Issue.record("no pass form on the machine: \(harness)")
      return
    }
    #expect(onMachine.directory == "/home/ci/.wormhole" && onMachine.focus == .identifier)
    harness.type("fresh<Up><Right><Tab><Tab>\"hi\"<Enter>")
    #expect(
      harness.remoteWrites == [
        RemoteWrite(
          .pass, machine: "ci-3", directory: "/srv/other", identifier: "fresh", value: .string("hi"))
      ], "\(harness.effects) \(harness)")
  }

  @Test func thePassFormSaysWhyWhenItsBridgeStopsTakingWritesAndPassesNothing() {
    var harness = DashboardHarness(width: 140, height: 30, mailboxes: ["local": .string("x")])
    Self.writableFleetWithButtonSelected(&harness)
    harness.type("p")
    guard case .pass = harness.state.overlay else {
      Issue.record("no pass form: \(harness)")
      return
    }
    // The bridge goes offline (its Last Will) while the form is open: the form says so.
    harness.sendFleet([Bridged.presence("ci-3", "offline")], at: harness.now)
    guard case .pass(let form)? = harness.state.overlay else {
      Issue.record("the form closed: \(harness)")
      return
    }
    #expect(
      form.problem == "remote writes off on ci-3: bridge ci-3 is offline",
      "\(String(describing: form.problem))")
    #expect(harness.shows("remote writes off on ci-3: bridge ci-3 is offline"), "\(harness)")
    harness.type("1<Enter>")
    #expect(harness.remoteWrites.isEmpty, "\(harness.effects)")
    // Back online, read-only now: the reason is the bridge's.
    harness.sendFleet(
      [
        Bridged.presence("ci-3", "online"),
        Bridged.info("ci-3", allowed: false, reason: "bridge started without --allow-remote-writes"),
      ], at: harness.now)
    #expect(
      harness.shows("remote writes off on ci-3: bridge started without --allow-remote-writes"), "\(harness)")
    harness.type("<Enter>")
    #expect(harness.remoteWrites.isEmpty)
    harness.type("<Esc>")
    // With the bridge refusing, p is refused with the reason, as the footer shows it disabled.
    harness.type("p")
    #expect(harness.state.overlay == nil)
    #expect(
      harness.state.status?.text.contains("refused: bridge started without --allow-remote-writes") == true)
  }

  @Test func aConfirmedRemoteWriteIsCheckedAgainWhenItIsSent() {
    var harness = DashboardHarness(width: 140, height: 30, mailboxes: ["local": .string("x")])
    Self.writableFleetWithButtonSelected(&harness)
    harness.type("d")
    guard case .confirm? = harness.state.overlay else {
      Issue.record("no confirmation: \(harness)")
      return
    }
    harness.sendFleet([Bridged.presence("ci-3", "offline")], at: harness.now)
    harness.type("y")
    #expect(harness.remoteWrites.isEmpty, "\(harness.effects)")
    #expect(
      harness.state.status?.text == "remote clear of button on ci-3 refused: bridge ci-3 is offline",
      "\(harness)")
  }

  // MARK: s and / on the fleet's branch

  /// The remote mailboxes of ci-3 as the tree shows them, in order.
  static func remoteRows(_ state: DashboardState) -> [String] {
    (0..<state.treeRowCount).compactMap {
      guard case .remoteMailbox(_, _, let identifier)? = state.node(atRow: $0) else { return nil }
      return identifier.lossyText
    }
  }

  @Test func sortOrdersTheFleetsMailboxesAsLocalOnes() {
    var harness = DashboardHarness(width: 140, height: 40, mailboxes: ["local": .string("x")])
    harness.sendFleet(
      [
        Bridged.presence("ci-3", "online"),
        Payload.mailbox("ci-3", "a", .integer(1), changed: "2025-11-30T10:00:01.000Z"),
        Payload.mailbox("ci-3", "b", .integer(1), changed: "2025-11-30T10:00:03.000Z"),
        Payload.mailbox("ci-3", "c", .integer(1), changed: "2025-11-30T10:00:02.000Z"),
      ], at: harness.now)
    #expect(Self.remoteRows(harness.state) == ["a", "b", "c"])
    harness.type("s")
    #expect(harness.state.sort == .recency)
    #expect(Self.remoteRows(harness.state) == ["b", "c", "a"], "\(harness)")
    // A change moves a mailbox under recency.
    harness.sendFleet(
      [Payload.mailbox("ci-3", "a", .integer(2), changed: "2025-11-30T10:00:09.000Z")], at: harness.now)
    #expect(Self.remoteRows(harness.state) == ["a", "b", "c"], "\(harness)")
    // Activity: most versions seen first (a has two).
    harness.type("s")
    #expect(harness.state.sort == .activity)
    #expect(Self.remoteRows(harness.state) == ["a", "b", "c"])
    harness.sendFleet(
      [
        Payload.mailbox("ci-3", "c", .integer(2)), Payload.mailbox("ci-3", "c", .integer(3)),
      ], at: harness.now)
    #expect(Self.remoteRows(harness.state) == ["c", "a", "b"], "\(harness)")
    harness.type("s")
    #expect(Self.remoteRows(harness.state) == ["a", "b", "c"])
  }

  @Test func theFilterAppliesToTheFleetsMailboxesBoundedAsLocalOnes() {
    var harness = DashboardHarness(
      width: 140, height: 40, mailboxes: ["local": .string("x"), "button-local": .integer(1)])
    Self.writableFleet(&harness)
    harness.type("/butt<Enter>")
    #expect(Self.remoteRows(harness.state) == ["button"], "\(harness)")
    // The machine and its directories stay; the local tree is filtered as before.
    #expect(Self.row(of: .machine("ci-3"), in: harness.state) != nil)
    #expect(Self.row(of: .remoteDirectory(machine: "ci-3", path: "/srv/other"), in: harness.state) != nil)
    #expect(harness.shows("button-local"), "\(harness)")
    // A mailbox that arrives later is matched as it comes.
    harness.sendFleet(
      [Payload.mailbox("ci-3", "button2", .integer(1)), Payload.mailbox("ci-3", "zeta", .integer(1))],
      at: harness.now)
    #expect(Self.remoteRows(harness.state) == ["button", "button2"], "\(harness)")
    harness.type("/<C-u>!butt<Enter>")
    #expect(Self.remoteRows(harness.state) == ["counter", "zeta", "status"], "\(harness)")
    harness.type("<Esc>")
    #expect(harness.state.mailboxFilter == nil)
    #expect(Self.remoteRows(harness.state).count == 5)
  }

  @Test func aHostilePatternOnHugeRemoteNamesIsCutOffAndTheLoopAnswersKeys() {
    var harness = DashboardHarness(width: 140, height: 40, mailboxes: ["local": .string("x")])
    let slow = String(repeating: "a", count: 240) + "!"
    Self.writableFleet(&harness)
    harness.sendFleet(
      [Payload.mailbox("ci-3", slow, .integer(1)), Payload.mailbox("ci-3", "aaa", .integer(1))],
      at: harness.now)
    harness.type("/(a+)+$")
    // The remote name is cut off (hidden, counted) as a local one would be; "aaa" is decided.
    #expect(harness.shows("cut off on 1 name"), "\(harness)")
    #expect(Self.remoteRows(harness.state) == ["aaa"], "\(harness)")
    harness.type("<Enter>")
    #expect(harness.shows("/(a+)+$ (1 hidden)"), "\(harness)")
    // More remote mailboxes: the cut-off name is not counted twice, the new one is matched.
    harness.sendFleet([Payload.mailbox("ci-3", "aaaa", .integer(1))], at: harness.now)
    #expect(harness.shows("/(a+)+$ (1 hidden)"), "\(harness)")
    #expect(Self.remoteRows(harness.state) == ["aaa", "aaaa"], "\(harness)")
    // Keys still go: the loop answers them.
    harness.type("<Esc>")
    #expect(harness.state.mailboxFilter == nil)
    #expect(Self.remoteRows(harness.state).contains(slow))
  }

  // MARK: Remote history within a byte budget

  @Test func remoteHistoryIsBoundByBytesTooOldestFirstAcrossMachinesAndSaid() {
    let size = (try? KeyedArchiveEncoder().encodeBytes(.integer(1)))?.count ?? 0
    #expect(size > 0)
    // Room for two earlier versions of that size, not three.
    var fleet = FleetState(historyDepth: 64, historyByteBudget: size * 2 + size / 2)
    var now: Int64 = 1_764_500_000_000
    func send(_ inputs: [FleetInput]) {
      now += 1000
      fleet.apply(inputs, at: now)
    }
    send([Payload.mailbox("m1", "counter", .integer(1))])
    send([Payload.mailbox("m1", "counter", .integer(2))])
    send([Payload.mailbox("m1", "counter", .integer(3))])
    #expect(fleet.historyBytes == size * 2 && fleet.evictedVersions == 0)
    send([Payload.mailbox("m2", "x", .integer(4))])
    send([Payload.mailbox("m2", "x", .integer(5))])
    // Three earlier versions would be beyond the budget: m1's oldest (1) goes first.
    #expect(fleet.evictedVersions == 1)
    #expect(fleet.historyBytes <= fleet.historyByteBudget)
    let counter = fleet.mailbox("counter", in: "/home/ci/.wormhole", machine: "m1")
    #expect(counter?.history.count == 1)
    #expect(counter?.current != nil)
    #expect(fleet.mailbox("x", in: "/home/ci/.wormhole", machine: "m2")?.history.count == 1)
    // A clear moves the current version into history, within the budget as well.
    send([Bridged.cleared("m2", "/home/ci/.wormhole", "x")])
    #expect(fleet.evictedVersions == 2 && fleet.historyBytes <= fleet.historyByteBudget)
    #expect(fleet.mailbox("counter", in: "/home/ci/.wormhole", machine: "m1")?.history.count == 0)
    // The machine's contents pane says the budget.
    var harness = DashboardHarness(width: 160, height: 30, mailboxes: ["local": .string("x")])
    harness.state.showFleet(broker: "mqtt://127.0.0.1:1883", historyDepth: 64)
    harness.sendFleet(
      [Bridged.presence("ci-3", "online"), Payload.mailbox("ci-3", "a", .integer(1))], at: harness.now)
    harness.sendFleet([Payload.mailbox("ci-3", "a", .integer(2))], at: harness.now)
    harness.type("g" + String(repeating: "j", count: Self.row(of: .machine("ci-3"), in: harness.state) ?? 0))
    #expect(harness.state.selection == .machine("ci-3"))
    #expect(
      harness.shows("history    \(size) B of 67 MB, 64 a mailbox"),
      "\(harness)")
  }
}
