import ArchivedValues
import Dashboard
import FleetModel
import FleetProtocol
import KeyedArchive
import MailboxModel
import SnapshotSupport
import Testing
import WormholeVocabulary

private let snapshots = snapshotDirectory()

/// Base64 of `bytes` (the bridge's payloads carry archives so).
private func base64(_ bytes: [UInt8]) -> String {
  let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
  var out = ""
  var index = 0
  while index < bytes.count {
    let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
    let group =
      UInt32(chunk[0]) << 16 | UInt32(chunk.count > 1 ? chunk[1] : 0) << 8
      | UInt32(chunk.count > 2 ? chunk[2] : 0)
    out.append(alphabet[Int(group >> 18 & 0x3F)])
    out.append(alphabet[Int(group >> 12 & 0x3F)])
    out.append(chunk.count > 1 ? alphabet[Int(group >> 6 & 0x3F)] : "=")
    out.append(chunk.count > 2 ? alphabet[Int(group & 0x3F)] : "=")
    index += 3
  }
  return out
}

/// Topic levels as the bridge encodes them.
private func level(_ text: String) -> String { BridgeTopics.encoded(text) }

/// Messages a bridge publishes, made by hand.
enum Bridged {
  static func presence(_ machine: String, _ word: String) -> FleetInput {
    FleetInput(
      topic: "wormhole/v1/machines/\(level(machine))/presence", payload: Array(word.utf8), isRetained: true)
  }

  static func info(_ machine: String, allowed: Bool, reason: String?) -> FleetInput {
    let reasonJSON = reason.map { "\"\($0)\"" } ?? "null"
    return FleetInput(
      topic: "wormhole/v1/machines/\(level(machine))/bridge",
      payload: Array("{\"version\":1,\"remote_writes\":\(allowed),\"reason\":\(reasonJSON)}".utf8),
      isRetained: true)
  }

  static func mailbox(
    _ machine: String, _ directory: String, _ identifier: String, _ value: ArchivedValue,
    sender: String = "app"
  ) -> FleetInput {
    let bytes = (try? KeyedArchiveEncoder().encodeBytes(value)) ?? []
    let summary = (try? KeyedArchiveInspector().inspect(bytes).summary(width: 200)) ?? ""
    let escapedSummary = summary.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
      of: "\"", with: "\\\"")
    let payload =
      "{\"directory\":\"\(directory)\",\"directory_bytes\":null,\"mailbox\":{\"identifier\":\"\(identifier)\","
      + "\"identifier_bytes\":null,\"present\":true,\"bytes\":\(bytes.count),\"modified\":\"2025-11-30T10:00:00.000Z\","
      + "\"versions\":1,\"history\":0,\"last_change\":\"2025-11-30T10:00:00.000Z\",\"last_writer\":\"\(sender)\","
      + "\"seq\":null,\"summary\":\"\(escapedSummary)\",\"error\":null},\"archive_base64\":\"\(base64(bytes))\","
      + "\"archive_note\":null}"
    return FleetInput(
      topic: "wormhole/v1/machines/\(level(machine))/mailboxes/\(level(directory))/\(level(identifier))",
      payload: Array(payload.utf8), isRetained: true)
  }

  static func cleared(_ machine: String, _ directory: String, _ identifier: String) -> FleetInput {
    FleetInput(
      topic: "wormhole/v1/machines/\(level(machine))/mailboxes/\(level(directory))/\(level(identifier))",
      payload: [], isRetained: true)
  }

  static func traffic(_ machine: String, _ directory: String, _ identifier: String, kind: String = "passed")
    -> FleetInput
  {
    let line =
      "{\"id\":7,\"time\":\"2025-11-30T10:00:01.000Z\",\"kind\":\"\(kind)\",\"directory\":\"\(directory)\","
      + "\"directory_bytes\":null,\"identifier\":\"\(identifier)\",\"identifier_bytes\":null,\"transiting\":\"file\","
      + "\"bytes\":12,\"sender\":\"app\",\"pid\":42,\"seq\":3,\"replay_of\":null,\"error\":null,\"device\":null,"
      + "\"peer\":null,\"delivery\":null,\"transfer\":null,\"route\":null,\"payload\":null}"
    return FleetInput(
      topic: "wormhole/v1/machines/\(level(machine))/traffic", payload: Array(line.utf8), isRetained: false)
  }

  /// Two machines: `ci-3` online with two mailboxes in one directory, `laptop` offline with one.
  static func fleet() -> [FleetInput] {
    [
      presence("ci-3", "online"),
      mailbox("ci-3", "/home/ci/.wormhole", "button", .string("tap")),
      mailbox("ci-3", "/home/ci/.wormhole", "counter", .integer(41)),
      presence("laptop", "offline"),
      mailbox("laptop", "/Users/me/group.example", "status", .string("idle")),
    ]
  }
}

extension DashboardHarness {
  /// Broker messages as the fleet's source hands them over: checked, in one batch, applied to
  /// the end (slice after slice, as the loop does).
  mutating func sendFleet(_ inputs: [FleetInput], at time: Int64) {
    send(.fleet(inputs.map { FleetMessage($0, at: time) }, at: time))
    while state.isLoadingFleet { send(.fleet([], at: time)) }
    effects = []
  }
}

@Suite struct FleetBranchTests {
  @Test func theReducerKeepsMachinesPresenceAndTheVersionsSeen() {
    var fleet = FleetState()
    let change = fleet.apply(Bridged.fleet(), at: 1_000)
    #expect(change.isStructural)
    #expect(fleet.machineNames == ["ci-3", "laptop"])
    #expect(fleet.machines["ci-3"]?.presence == .online)
    #expect(fleet.machines["laptop"]?.presence == .offline)
    #expect(fleet.mailboxCount == 3)
    let button = fleet.mailbox("button", in: "/home/ci/.wormhole", machine: "ci-3")
    #expect(button?.current?.sender == "app")
    #expect(button?.versionCount == 1)
    #expect((button?.current?.serial ?? 0) >= FleetState.firstSerial)
    // The same payload again (a bridge reconnecting publishes everything): no new version.
    let again = fleet.apply(
      [Bridged.mailbox("ci-3", "/home/ci/.wormhole", "button", .string("tap"))], at: 2_000)
    #expect(!again.isStructural)
    #expect(fleet.mailbox("button", in: "/home/ci/.wormhole", machine: "ci-3")?.versionCount == 1)
    fleet.apply([Bridged.mailbox("ci-3", "/home/ci/.wormhole", "button", .string("press"))], at: 3_000)
    let changed = fleet.mailbox("button", in: "/home/ci/.wormhole", machine: "ci-3")
    #expect(changed?.versionCount == 2)
    #expect(changed?.history.count == 1)
    fleet.apply([Bridged.cleared("ci-3", "/home/ci/.wormhole", "button")], at: 4_000)
    let cleared = fleet.mailbox("button", in: "/home/ci/.wormhole", machine: "ci-3")
    #expect(cleared?.current == nil)
    #expect(cleared?.history.count == 2)
    #expect(fleet.dropped == 0)
  }

  @Test func hostileMessagesAreDroppedCountedAndSaid() {
    var harness = DashboardHarness(width: 140, height: 30, mailboxes: ["local": .string("x")])
    harness.state.showFleet(broker: "mqtt://127.0.0.1:1883", historyDepth: 64)
    let good = Bridged.mailbox("ci-3", "/d", "ok", .string("fine"))
    var badBase64 = good
    badBase64.payload = Array(
      String(decoding: good.payload, as: UTF8.self).replacingOccurrences(
        of: "\"archive_base64\":\"", with: "\"archive_base64\":\"!!"
      ).utf8)
    let hostile: [FleetInput] = [
      FleetInput(
        topic: "wormhole/v1/machines/evil%2/presence", payload: Array("online".utf8), isRetained: true),
      FleetInput(topic: "wormhole/v1/machines/evil/unknown", payload: Array("x".utf8), isRetained: true),
      FleetInput(
        topic: "wormhole/v1/machines/evil/presence", payload: Array("\u{1B}[2J".utf8), isRetained: true),
      FleetInput(
        topic: "wormhole/v1/machines/evil/mailboxes/d/x", payload: Array("\u{1B}[2J{".utf8), isRetained: true),
      FleetInput(topic: "wormhole/v1/machines/evil/traffic", payload: Array("{}".utf8), isRetained: false),
      FleetInput(
        topic: "wormhole/v1/machines/evil/traffic", payload: Bridged.traffic("evil", "/d", "x").payload,
        isRetained: true),
      FleetInput(
        topic: "wormhole/v1/machines/evil/presence",
        payload: [UInt8](repeating: 0x41, count: FleetState.payloadByteLimit + 1), isRetained: true),
      badBase64,
      .refused("a topic that is not UTF-8"),
      good,
    ]
    harness.sendFleet(hostile, at: harness.now)
    #expect(harness.state.fleet.dropped == 9)
    #expect(harness.shows("1 machine (0 online)  broker down  9 dropped"), "\(harness)")
    #expect(harness.state.fleet.machineNames == ["ci-3"])
    #expect(harness.state.status?.text.contains("9 messages dropped") == true, "\(harness)")
    #expect(!harness.lines.joined().contains("\u{1B}"))
    #expect(!harness.shows("evil"), "\(harness)")
  }

  @Test func theFleetBranchFollowsTheLocalRootsWithEachMachinesPresence() {
    var harness = DashboardHarness(mailboxes: ["local": .string("x")])
    let rows = harness.state.treeRowCount
    harness.sendFleet(Bridged.fleet(), at: harness.now)
    // ci-3, its directory and two mailboxes; laptop, its directory and one mailbox.
    #expect(harness.state.treeRowCount == rows + 4 + 3)
    #expect(harness.state.node(atRow: rows) == .machine("ci-3"))
    #expect(
      harness.state.node(atRow: rows + 1) == .remoteDirectory(machine: "ci-3", path: "/home/ci/.wormhole"))
    #expect(
      harness.state.node(atRow: rows + 2)
        == .remoteMailbox(machine: "ci-3", directory: "/home/ci/.wormhole", identifier: "button"))
    #expect(harness.shows("⇄ ci-3"), "\(harness)")
    #expect(harness.shows("online 2"), "\(harness)")
    #expect(harness.shows("OFFLINE 1"), "\(harness)")
    // Enter on a machine folds it.
    harness.type("G")
    harness.type("kk")
    #expect(harness.state.selection == .machine("laptop"))
    harness.type("<Enter>")
    #expect(harness.state.treeRowCount == rows + 4 + 1)
    // The bridge dies: its Last Will marks it offline; what it published stays.
    harness.sendFleet([Bridged.presence("ci-3", "offline")], at: harness.now)
    #expect(harness.state.fleet.machines["ci-3"]?.presence == .offline)
    #expect(harness.state.treeRowCount == rows + 4 + 1)
  }

  @Test func aRemoteMailboxShowsItsValueHistoryAndDiffAsALocalOne() {
    var harness = DashboardHarness(mailboxes: ["local": .string("x")])
    harness.sendFleet(Bridged.fleet(), at: harness.now)
    let rows = harness.state.treeRowCount
    harness.type("jjjj")
    #expect(
      harness.state.selection
        == .remoteMailbox(machine: "ci-3", directory: "/home/ci/.wormhole", identifier: "counter"), "\(rows)")
    #expect(harness.shows("41"), "\(harness)")
    harness.now += 1000
    harness.sendFleet(
      [Bridged.mailbox("ci-3", "/home/ci/.wormhole", "counter", .integer(42))], at: harness.now)
    #expect(harness.shows("42"), "\(harness)")
    #expect(harness.state.selectedMailbox?.versionCount == 2)
    #expect(harness.shows("root ▁█"), "\(harness)")
    harness.type("<Tab>vvvv")
    #expect(harness.state.contentsView == .diff)
    let diff = harness.state.contentsLines().map { $0.pieces.map(\.text).joined() }
    #expect(diff.contains { $0.contains("41") && $0.contains("42") }, "\(diff)")
    harness.type("v")
    harness.type("v")
    #expect(harness.state.contentsView == .json)
    #expect(harness.state.contentsLines().map { $0.pieces.map(\.text).joined() }.contains("42"))
  }

  @Test func remoteTrafficJoinsTheStreamWithTheMachinesName() {
    var harness = DashboardHarness(width: 120, height: 30, mailboxes: ["local": .string("x")])
    harness.sendFleet(
      Bridged.fleet() + [Bridged.traffic("ci-3", "/home/ci/.wormhole", "button")], at: harness.now)
    #expect(harness.state.model.traffic.last?.details.machine == "ci-3")
    #expect(harness.shows("ci-3:button"), "\(harness)")
    // r on that entry is a remote replay: refused with the reason, nothing local written.
    harness.type("<Tab><Tab>kr")
    #expect(harness.effects.isEmpty, "\(harness.effects)")
    #expect(
      harness.state.status?.text.contains("bridge ci-3 does not accept remote writes") == true, "\(harness)")
  }

  @Test func remoteActionsAreDisabledWithTheReasonAndRefusedOnAKey() {
    var harness = DashboardHarness(width: 160, height: 30, mailboxes: ["local": .string("x")])
    harness.sendFleet(
      Bridged.fleet() + [
        Bridged.info("laptop", allowed: false, reason: "started without --allow-remote-writes")
      ],
      at: harness.now)
    harness.type("jjj")
    #expect(harness.state.remoteWriteRefusal == "bridge ci-3 does not accept remote writes")
    #expect(harness.shows("remote writes off: bridge ci-3 does not accept remote writes"), "\(harness)")
    for keys in ["p", "d", "D", "<Tab>r", ":pass x 1<Enter>", ":clear<Enter>"] {
      harness.type(keys)
      #expect(harness.state.overlay == nil, "\(keys)")
      #expect(harness.effects.isEmpty, "\(keys): \(harness.effects)")
      #expect(
        harness.state.status?.text.contains("refused: bridge ci-3 does not accept remote writes") == true,
        "\(keys) \(harness)")
      if harness.state.focus != .mailboxes { harness.type("<Esc>") }
    }
    harness.type("?")
    #expect(harness.shows("disabled: bridge ci-3 does not accept remote writes"), "\(harness)")
    harness.type("<Esc>G")
    #expect(harness.state.remoteWriteRefusal == "started without --allow-remote-writes")
    harness.type("d")
    #expect(harness.state.status?.text.contains("refused: started without --allow-remote-writes") == true)
  }

  @Test func readOnlyRefusesRemoteWritesAsItRefusesLocalOnes() {
    var harness = DashboardHarness(readOnly: true, mailboxes: ["local": .string("x")])
    harness.sendFleet(Bridged.fleet() + [Bridged.info("ci-3", allowed: true, reason: nil)], at: harness.now)
    harness.type("jjj")
    #expect(harness.state.remoteWriteRefusal == nil)
    for keys in ["p", "d", "D", "<Tab>r"] {
      harness.type(keys)
      #expect(harness.effects.isEmpty, "\(keys)")
      #expect(harness.state.status?.text.hasPrefix("read-only: ") == true, "\(keys) \(harness)")
      if harness.state.focus != .mailboxes { harness.type("<Esc>") }
    }
  }

  @Test func allowedRemoteActionsGoOutAsRequestsAfterAConfirmation() {
    var harness = DashboardHarness(width: 140, height: 30, mailboxes: ["local": .string("x")])
    harness.sendFleet(Bridged.fleet() + [Bridged.info("ci-3", allowed: true, reason: nil)], at: harness.now)
    harness.type("jjj")
    #expect(harness.state.remoteWriteRefusal == nil)
    #expect(!harness.shows("remote writes off"), "\(harness)")
    harness.type("d")
    #expect(harness.effects.isEmpty)
    harness.type("y")
    let clear = RemoteWrite(.clear, machine: "ci-3", directory: "/home/ci/.wormhole", identifier: "button")
    #expect(harness.effects == [.remoteWrite(clear)])
    harness.effects = []
    harness.type(":pass other {\"n\":1}<Enter>")
    #expect(
      harness.effects == [
        .remoteWrite(
          RemoteWrite(
            .pass, machine: "ci-3", directory: "/home/ci/.wormhole", identifier: "other",
            value: .dictionary([ArchivedEntry(key: .string("n"), value: .integer(1))])))
      ], "\(harness.effects)")
    harness.effects = []
    // r in the contents replays the version under the history cursor, with its archive.
    harness.type("<Tab>r")
    guard case .remoteWrite(let replay)? = harness.effects.first else {
      Issue.record("no replay: \(harness.effects) \(harness)")
      return
    }
    #expect(replay.operation == .replay && replay.identifier == "button" && replay.archive?.isEmpty == false)
    // The reply shows in the status line.
    harness.send(.effectFinished(.failed(.remoteWrite(clear), "refused by the bridge: no such mailbox")))
    #expect(harness.state.status?.text.contains("no such mailbox") == true, "\(harness)")
    // Read-only governs them too.
    var readOnly = DashboardHarness(readOnly: true, mailboxes: ["local": .string("x")])
    readOnly.sendFleet(Bridged.fleet() + [Bridged.info("ci-3", allowed: true, reason: nil)], at: readOnly.now)
    readOnly.type("jjjd")
    #expect(readOnly.state.overlay == nil)
    readOnly.type(":pass other 1<Enter><Tab>r")
    #expect(readOnly.effects.isEmpty, "\(readOnly.effects)")
  }

  @Test(arguments: [(100, 30), (80, 24)])
  func snapshotOfTheFleetBranch(width: Int, height: Int) {
    var harness = DashboardHarness(width: width, height: height, mailboxes: ["local": .string("x")])
    harness.state.showFleet(broker: "mqtt://127.0.0.1:1883", historyDepth: 64)
    harness.send(.fleetConnection(nil))
    harness.sendFleet(
      Bridged.fleet() + [
        Bridged.traffic("ci-3", "/home/ci/.wormhole", "button"),
        Bridged.presence("evil\u{1B}[2J", "online"),
      ], at: harness.now)
    harness.type("jjj")
    expectSnapshot(harness.screen, named: "fleet-mailbox-\(width)x\(height)", in: snapshots)
    harness.type("k<Up>")
    expectSnapshot(harness.screen, named: "fleet-machine-\(width)x\(height)", in: snapshots)
  }

  /// 100 bridged machines of 50 mailboxes each, filed in batches of 500 as FleetSource hands them
  /// over: every machine and mailbox is a row, keys move over them, a live change of one lands.
  /// (How fast is not a unit test's to say: the shared machine's timings are noise here.)
  @Test func aHundredMachinesOfFiftyMailboxesAreAllShown() {
    var harness = DashboardHarness(mailboxes: ["local": .string("x")])
    let template = Bridged.mailbox("m", "/d", "i", .string("value"))
    let payload = String(decoding: template.payload, as: UTF8.self)
    var inputs: [FleetInput] = []
    for machine in 0..<100 {
      inputs.append(Bridged.presence("machine-\(machine)", "online"))
      for mailbox in 0..<50 {
        inputs.append(
          FleetInput(
            topic: "wormhole/v1/machines/machine-\(machine)/mailboxes/%2Fd/mailbox-\(mailbox)",
            payload: Array(payload.utf8), isRetained: true))
      }
    }
    var index = 0
    while index < inputs.count {
      harness.sendFleet(Array(inputs[index..<min(index + 500, inputs.count)]), at: harness.now)
      index += 500
    }
    #expect(harness.state.fleet.mailboxCount == 5000)
    #expect(harness.state.treeRowCount == 2 + 100 * 52)
    for keys in ["G", "k", "k", "g", "j", "j", "<PgDn>", "<PgDn>", "<Enter>", "j", "<Enter>"] {
      harness.type(keys)
      _ = harness.screen
    }
    harness.sendFleet(
      [
        FleetInput(
          topic: "wormhole/v1/machines/machine-7/mailboxes/%2Fd/mailbox-3",
          payload: Bridged.mailbox("m", "/d", "i", .string("other")).payload, isRetained: true)
      ], at: harness.now)
    #expect(harness.state.fleet.mailboxCount == 5000)
  }

  /// Anyone who can publish on the broker can invent machines and mailboxes: beyond the limits
  /// each new one is dropped and counted with the reason, never kept.
  @Test func machinesAndMailboxesBeyondTheLimitsAreDroppedAndCounted() {
    var fleet = FleetState()
    var inputs = (0..<FleetState.machineLimit).map { Bridged.presence("m\($0)", "online") }
    inputs.append(Bridged.presence("one-too-many", "online"))
    let change = fleet.apply(inputs, at: 0)
    #expect(fleet.machines.count == FleetState.machineLimit)
    #expect(fleet.machines["one-too-many"] == nil)
    #expect(change.dropped == 1)
    #expect(fleet.lastDropReason?.contains("more than \(FleetState.machineLimit) machines") == true)
    // Known machines still change.
    fleet.apply([Bridged.presence("m1", "offline")], at: 1)
    #expect(fleet.machines["m1"]?.presence == .offline)
    #expect(fleet.dropped == 1)
    var small = FleetState(mailboxLimit: 3)
    small.apply((0..<4).map { Bridged.mailbox("m", "/d", "i\($0)", .string("v")) }, at: 0)
    #expect(small.mailboxCount == 3)
    #expect(small.dropped == 1)
    #expect(small.lastDropReason?.contains("more than 3 mailboxes") == true)
    // One kept already still changes.
    small.apply([Bridged.mailbox("m", "/d", "i0", .string("w"))], at: 1)
    #expect(small.dropped == 1)
  }
}
