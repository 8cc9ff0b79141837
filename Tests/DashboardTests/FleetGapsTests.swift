import ArchivedValues
import Dashboard
import FleetModel
import FleetProtocol
import KeyedArchive
import MailboxModel
import Testing
import WormholeVocabulary

/// Messages a bridge publishes with a journal sequence number (`Bridged.mailbox` sends `null`).
private enum Journaled {
  static func mailbox(
    _ machine: String, _ directory: String, _ identifier: String, _ value: ArchivedValue, seq: Int
  )
    -> FleetInput
  {
    var input = Bridged.mailbox(machine, directory, identifier, value)
    input.payload = Array(
      String(decoding: input.payload, as: UTF8.self).replacingOccurrences(
        of: "\"seq\":null", with: "\"seq\":\(seq)"
      )
      .utf8)
    return input
  }
}

extension DashboardHarness {
  /// The remote writes among the effects, in order.
  var remoteWrites: [RemoteWrite] {
    effects.compactMap { effect in
      guard case .remoteWrite(let write) = effect else { return nil }
      return write
    }
  }
}

/// The fleet's gaps of issue 15: remote replays that name their record, remote clear-all,
/// duplicate keys refused, reloads after a reconnection, and batches applied in slices.
@Suite struct FleetGapsTests {
  /// A fleet of `ci-3`, which accepts remote writes, with `counter` at two versions (records 4, 9).
  static func writableFleet(_ harness: inout DashboardHarness) {
    harness.sendFleet(
      [
        Bridged.presence("ci-3", "online"), Bridged.info("ci-3", allowed: true, reason: nil),
        Journaled.mailbox("ci-3", "/home/ci/.wormhole", "button", .string("tap"), seq: 2),
        Journaled.mailbox("ci-3", "/home/ci/.wormhole", "counter", .integer(41), seq: 4),
      ], at: harness.now)
    harness.now += 1000
    harness.sendFleet(
      [Journaled.mailbox("ci-3", "/home/ci/.wormhole", "counter", .integer(42), seq: 9)], at: harness.now)
  }

  @Test func aRemoteReplayOfAVersionNamesTheRecordThatWroteIt() {
    var harness = DashboardHarness(width: 140, height: 30, mailboxes: ["local": .string("x")])
    Self.writableFleet(&harness)
    harness.type("jjjj")
    #expect(
      harness.state.selection
        == .remoteMailbox(machine: "ci-3", directory: "/home/ci/.wormhole", identifier: "counter"),
      "\(harness)")
    // The history cursor on the older version (record 4), then r.
    harness.type("<Tab>vvv")
    #expect(harness.state.contentsView == .history)
    harness.type("jr")
    guard let replay = harness.remoteWrites.first else {
      Issue.record("no replay: \(harness.effects) \(harness)")
      return
    }
    #expect(replay.operation == .replay)
    #expect(replay.identifier == "counter")
    #expect(replay.replayOf == 4, "\(replay)")
    #expect(replay.archive == (try? KeyedArchiveEncoder().encodeBytes(.integer(41))))
  }

  @Test func aRemoteTrafficEntryIsReplayedAsItsRecordWhenItsVersionIsKept() {
    var harness = DashboardHarness(width: 140, height: 30, mailboxes: ["local": .string("x")])
    Self.writableFleet(&harness)
    // Bridged.traffic's entry is record 3 of counter: no version of it is kept here, so the
    // bridge replays it from its own history; then one is kept, and its archive goes.
    harness.sendFleet([Bridged.traffic("ci-3", "/home/ci/.wormhole", "counter")], at: harness.now)
    harness.type("<Tab><Tab>kr")
    #expect(
      harness.remoteWrites == [
        RemoteWrite(
          .replayRecord, machine: "ci-3", directory: "/home/ci/.wormhole", identifier: "counter", replayOf: 3)
      ], "\(harness.effects)")
    harness.type("<Esc><Esc>")
    #expect(harness.state.focus == .mailboxes)
    harness.sendFleet(
      [
        Journaled.mailbox("ci-3", "/home/ci/.wormhole", "counter", .integer(43), seq: 3),
        Journaled.mailbox("ci-3", "/home/ci/.wormhole", "counter", .integer(44), seq: 12),
        Bridged.traffic("ci-3", "/home/ci/.wormhole", "counter"),
      ], at: harness.now)
    harness.effects = []
    harness.type("<Tab><Tab>kr")
    guard let replay = harness.remoteWrites.first else {
      Issue.record("no replay: \(harness.effects) \(harness)")
      return
    }
    #expect(replay.operation == .replay && replay.machine == "ci-3" && replay.identifier == "counter")
    #expect(replay.replayOf == 3)
    #expect(replay.archive == (try? KeyedArchiveEncoder().encodeBytes(.integer(43))))
    // Other writes from the traffic pane say where to make them.
    harness.effects = []
    harness.type(":clear<Enter>")
    #expect(harness.remoteWrites.isEmpty && harness.state.overlay == nil)
    #expect(
      harness.state.status?.text.contains("select one of its mailboxes in the tree") == true, "\(harness)")
  }

  @Test func aRemoteClearAllIsConfirmedThenSentAsOneRequest() {
    var harness = DashboardHarness(width: 160, height: 30, mailboxes: ["local": .string("x")])
    Self.writableFleet(&harness)
    harness.type("jj")
    #expect(harness.state.selection == .remoteDirectory(machine: "ci-3", path: "/home/ci/.wormhole"))
    harness.type("D")
    #expect(harness.remoteWrites.isEmpty)
    #expect(harness.shows("Clear all 2 mailboxes of /home/ci/.wormhole on ci-3?"), "\(harness)")
    harness.type("y")
    #expect(
      harness.remoteWrites == [
        RemoteWrite(.clearAll, machine: "ci-3", directory: "/home/ci/.wormhole", identifier: nil)
      ],
      "\(harness.effects)")
    // From a mailbox of the directory too, by command.
    harness.effects = []
    harness.type("j:clear-all<Enter>y")
    #expect(harness.remoteWrites.map(\.operation) == [.clearAll], "\(harness.effects) \(harness)")
    #expect(
      RemoteWrite(.clearAll, machine: "ci-3", directory: "/d", identifier: nil).description
        == "remote clear-all of /d on ci-3")
  }

  @Test func aClearAllTrafficEntryWithoutAnIdentifierJoinsTheStream() {
    var fleet = FleetState()
    let entry = Bridged.traffic("ci-3", "/home/ci/.wormhole", "", kind: "cleared-all")
    let change = fleet.apply([entry, Bridged.traffic("ci-3", "/home/ci/.wormhole", "", kind: "pass")], at: 0)
    #expect(change.traffic.map(\.kind) == [.clearedAll])
    #expect(change.dropped == 1)
  }

  @Test func aMailboxPayloadNamingAKeyTwiceIsDroppedWithTheReason() {
    var fleet = FleetState()
    var twice = Bridged.mailbox("ci-3", "/d", "x", .string("v"))
    twice.payload = Array(
      String(decoding: twice.payload, as: UTF8.self).replacingOccurrences(
        of: "\"directory\":\"/d\"", with: "\"directory\":\"/etc\",\"directory\":\"/d\""
      ).utf8)
    var nested = Bridged.mailbox("ci-3", "/d", "y", .string("v"))
    nested.payload = Array(
      String(decoding: nested.payload, as: UTF8.self).replacingOccurrences(
        of: "\"present\":true", with: "\"present\":true,\"present\":false"
      ).utf8)
    let info = FleetInput(
      topic: "wormhole/v1/machines/ci-3/bridge",
      payload: Array("{\"version\":1,\"remote_writes\":false,\"remote_writes\":true,\"reason\":null}".utf8),
      isRetained: true)
    let change = fleet.apply([twice, nested, info], at: 0)
    #expect(change.dropped == 3)
    #expect(fleet.mailboxCount == 0)
    #expect(fleet.machines["ci-3"]?.remoteWrites == nil)
    #expect(
      fleet.lastDropReason?.contains("\"remote_writes\" appears twice") == true,
      "\(fleet.lastDropReason ?? "")")
    fleet.apply([twice], at: 0)
    #expect(
      fleet.lastDropReason?.contains("\"directory\" appears twice") == true, "\(fleet.lastDropReason ?? "")")
  }

  @Test func aReloadForgetsWhatTheBrokerNoLongerHoldsAndSaysSo() {
    var harness = DashboardHarness(width: 140, height: 30, mailboxes: ["local": .string("x")])
    harness.state.showFleet(broker: "mqtt://127.0.0.1:1883", historyDepth: 64)
    harness.sendFleet(
      [
        Bridged.presence("ghost", "online"), Bridged.info("ghost", allowed: true, reason: nil),
        Bridged.mailbox("ghost", "/g", "left", .integer(1)),
        Bridged.presence("alive", "online"), Bridged.info("alive", allowed: true, reason: nil),
        Bridged.mailbox("alive", "/a", "kept", .integer(1)),
        Bridged.mailbox("alive", "/a", "stale", .integer(2)),
        Bridged.mailbox("alive", "/a", "wiped", .integer(3)), Bridged.cleared("alive", "/a", "wiped"),
      ], at: harness.now)
    #expect(harness.state.fleet.machineNames == ["alive", "ghost"])
    // The broker restarted without persistence: only alive's bridge published again, and not all.
    harness.send(
      .fleet(
        [.reloadStarted, FleetMessage(Bridged.mailbox("alive", "/a", "kept", .integer(1)), at: harness.now)],
        at: harness.now))
    // Until the reload ends nothing is forgotten.
    #expect(harness.state.fleet.machines["ghost"]?.presence == .online)
    harness.send(.fleet([.reloadFinished], at: harness.now))
    #expect(harness.state.fleet.machineNames == ["alive"])
    let alive = harness.state.fleet.machines["alive"]
    #expect(alive?.presence == .unknown)
    #expect(alive?.remoteWriteRefusal == FleetState.unconfirmedReason)
    #expect(alive?.mailbox("kept", in: "/a")?.current != nil)
    #expect(alive?.mailbox("stale", in: "/a") == nil)
    // A cleared mailbox has nothing retained: it keeps its history.
    #expect(alive?.mailbox("wiped", in: "/a")?.history.count == 1)
    #expect(
      harness.state.status?.text.contains(
        "the fleet was reloaded from what the broker holds: 1 machine (1 machine gone, 1 mailbox gone, 1 without presence or bridge info"
      )
        == true, "\(harness)")
    #expect(!harness.shows("ghost"), "\(harness)")
    #expect(harness.shows("presence ?"), "\(harness)")
    // When the broker kept everything, a reload forgets nothing.
    harness.send(
      .fleet(
        [
          .reloadStarted, FleetMessage(Bridged.presence("alive", "online"), at: harness.now),
          FleetMessage(Bridged.info("alive", allowed: true, reason: nil), at: harness.now),
          FleetMessage(Bridged.mailbox("alive", "/a", "kept", .integer(1)), at: harness.now), .reloadFinished,
        ], at: harness.now))
    #expect(harness.state.status?.text.contains("1 machine, nothing forgotten") == true, "\(harness)")
    #expect(harness.state.fleet.machines["alive"]?.remoteWriteRefusal == nil)
  }

  @Test func aLargeBatchIsAppliedASliceAtATime() {
    var harness = DashboardHarness(mailboxes: ["local": .string("x")])
    let template = Bridged.mailbox("m", "/d", "i", .string("value"))
    var messages: [FleetMessage] = []
    for index in 0..<1000 {
      messages.append(
        FleetMessage(
          FleetInput(
            topic: "wormhole/v1/machines/m/mailboxes/%2Fd/mailbox-\(index)", payload: template.payload,
            isRetained: true), at: harness.now))
    }
    harness.send(.fleet(messages, at: harness.now))
    #expect(harness.state.fleet.mailboxCount == DashboardState.fleetSliceSize)
    #expect(harness.state.isLoadingFleet)
    var slices = 1
    while harness.state.isLoadingFleet {
      harness.send(.fleet([], at: harness.now))
      slices += 1
    }
    #expect(slices == (1000 + DashboardState.fleetSliceSize - 1) / DashboardState.fleetSliceSize)
    #expect(harness.state.fleet.mailboxCount == 1000)
  }
}
