import Dashboard
import DashboardRuntime
import FleetClient
import FleetProtocol
import Foundation
import KeyedArchive
import TestSupport
import Testing
import Wormhole
import WormholeVocabulary

/// The fleet dashboard's remaining gaps against a mosquitto of the test's own and a real
/// `bridge`: a record replayed from the bridge's own history, the sequence numbers of clears, and
/// the `p` form passing on a bridged machine.
@Suite(
  .enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"), .serialized,
  .hangLimit)
struct FleetDashBrokerTests {
  typealias Setup = BridgeTests.Setup

  /// Waits until `mosquitto_sub` sees the retained mailbox `identifier` of `machine` whose
  /// summary contains `text`: the bridge's model has that version.
  static func waitForVersion(_ setup: Setup, _ machine: String, _ identifier: String, summary text: String)
    throws
  {
    let topic = setup.mailboxTopic(machine, identifier)
    let watcher = try Subscriber(setup.broker, filter: topic)
    defer { watcher.stop() }
    let lines = watcher.lines.wait { BridgeTests.payloads($0, topic: topic).contains { $0.contains(text) } }
    #expect(BridgeTests.payloads(lines, topic: topic).contains { $0.contains(text) }, "\(lines)")
  }

  @Test func aRecordIsReplayedFromTheBridgesHistoryOrRefusedNamingTheNearestKeptVersion() throws {
    let setup = try Setup()
    defer { setup.stop() }
    // Written before the bridge runs: its model never sees the first version.
    try setup.pass("greeting", "\"first\"")
    try setup.pass("greeting", "\"second\"")
    let (bridge, _) = try RemoteWriteTests.bridge(setup, machine: "m1", writes: true)
    try setup.pass("greeting", "\"third\"")
    try setup.pass("greeting", "\"fourth\"")
    var records = try RemoteWriteTests.records(setup)
    let sequences = records.filter { $0.identifier == "greeting" }.map(\.sequence)
    #expect(sequences.count == 4, "\(records)")
    try Self.waitForVersion(setup, "m1", "greeting", summary: "fourth")
    let client = RemoteWriteClient(broker: setup.broker.address, timeout: 10)
    let directory = FileName(setup.container)
    // The version record 3 wrote ("third"), which no client holds: the bridge has it.
    let reply = try client.perform(
      .replayRecord, on: "m1", directory: directory, identifier: "greeting", replayOf: sequences[2])
    #expect(reply.isOK, "\(reply) \(bridge.diagnostics)")
    #expect(try RemoteWriteTests.value(setup, "greeting") == .string("third"))
    let third = try KeyedArchiveEncoder().encodeBytes(.string("third"))
    #expect(reply.replayed?.record == sequences[2])
    #expect(reply.replayed?.byteCount == third.count, "\(reply)")
    records = try RemoteWriteTests.records(setup)
    let replay = try #require(records.last)
    #expect(replay.replayOf == sequences[2] && replay.sender == "bridge m1 (remote)", "\(replay)")
    #expect(reply.sequence == replay.sequence)
    // The first version was overwritten before the bridge started: refused, naming the nearest.
    let gone = try client.perform(
      .replayRecord, on: "m1", directory: directory, identifier: "greeting", replayOf: sequences[0])
    #expect(!gone.isOK)
    #expect(
      gone.error?.contains("the version record \(sequences[0]) wrote is no longer kept") == true, "\(gone)")
    #expect(gone.error?.contains("nearest kept: ") == true, "\(gone)")
    // A record the journal never wrote, and one of another mailbox.
    let invented = try client.perform(
      .replayRecord, on: "m1", directory: directory, identifier: "greeting", replayOf: 99_999_999)
    #expect(invented.error?.contains("not in this directory's journal") == true, "\(invented)")
    let other = try client.perform(
      .replayRecord, on: "m1", directory: directory, identifier: "other", replayOf: sequences[3])
    #expect(other.error?.contains("wrote greeting, not other") == true, "\(other)")
    #expect(try RemoteWriteTests.records(setup).count == records.count, "a refusal wrote a record")
    bridge.stop()
    // A read-only bridge refuses it before anything is sent, with its reason.
    let (readOnly, _) = try RemoteWriteTests.bridge(setup, machine: "m1", writes: false)
    defer { readOnly.stop() }
    #expect(
      throws: RemoteWriteError.readOnly(machine: "m1", reason: "bridge started without --allow-remote-writes")
    ) {
      try client.perform(
        .replayRecord, on: "m1", directory: directory, identifier: "greeting", replayOf: sequences[3])
    }
    #expect(try RemoteWriteTests.records(setup).count == records.count)
    #expect(try RemoteWriteTests.value(setup, "greeting") == .string("third"))
  }

  @Test func aClearAndAClearAllAnswerWithTheirJournalRecords() throws {
    let setup = try Setup()
    defer { setup.stop() }
    try setup.pass("a", "1")
    try setup.pass("b", "2")
    try setup.pass("c", "3")
    let (bridge, _) = try RemoteWriteTests.bridge(setup, machine: "m1", writes: true)
    defer { bridge.stop() }
    let client = RemoteWriteClient(broker: setup.broker.address, timeout: 10)
    let directory = FileName(setup.container)
    let cleared = try client.perform(.clear, on: "m1", directory: directory, identifier: "a")
    #expect(cleared.isOK, "\(cleared) \(bridge.diagnostics)")
    let clear = try #require(try RemoteWriteTests.records(setup).last { $0.kind == .clear })
    #expect(cleared.sequence == clear.sequence, "\(cleared)")
    let all = try client.perform(.clearAll, on: "m1", directory: directory, identifier: nil)
    #expect(all.isOK, "\(all) \(bridge.diagnostics)")
    let clearAll = try #require(try RemoteWriteTests.records(setup).last { $0.kind == .clearAll })
    #expect(all.sequence == clearAll.sequence, "\(all)")
    #expect(clearAll.sender == "bridge m1 (remote)")
  }

  @Test func thePassFormOnABridgedMailboxPassesThroughItsBridge() throws {
    let setup = try Setup()
    defer { setup.stop() }
    try setup.pass("greeting", "\"hello\"")
    let (bridge, _) = try RemoteWriteTests.bridge(setup, machine: "m1", writes: true)
    defer { bridge.stop() }
    let (terminal, loop) = try FleetGapsBrokerTests.runDashboard(
      setup,
      script: [.waitFor("greeting")] + FleetGapsBrokerTests.keys("jj")
        + [.waitFor("greeting: \"hello\"")]
        + FleetGapsBrokerTests.keys("p") + [.waitFor("Pass a message on m1")]
        + FleetGapsBrokerTests.keys("\"from the form\"<Enter>")
        + [.waitFor("remote pass of greeting on m1 done")] + FleetGapsBrokerTests.keys("q"))
    #expect(
      terminal.failures.isEmpty,
      "\(terminal.failures) \(loop.state.messageLog.entries.map(\.text)) \(bridge.diagnostics)")
    #expect(try RemoteWriteTests.value(setup, "greeting") == .string("from the form"))
    let record = try #require(try RemoteWriteTests.records(setup).last)
    #expect(record.kind == .pass && record.sender == "bridge m1 (remote)", "\(record)")
  }
}
