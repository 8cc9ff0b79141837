import FleetClient
import FleetProtocol
import Foundation
import TestSupport
import Testing
import Wormhole
import WormholeVocabulary

/// `bridge --history N`: the versions each mailbox keeps in the bridge's model, which
/// replay-record requests take their archive from (the dashboard's option, issue 15).
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct BridgeHistoryTests {
  typealias Setup = BridgeTests.Setup

  /// Four versions seen by a bridge that keeps two earlier ones: the first was evicted (a
  /// default bridge, 64, would replay it), and its replay is refused naming the nearest kept
  /// one, the second, whose replay is applied.
  @Test func aBridgeWithHistory2RefusesAnEvictedVersionNamingTheNearestKeptOne() throws {
    let setup = try Setup()
    defer { setup.stop() }
    let watcher = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/bridge")
    defer { watcher.stop() }
    let bridge = try BridgeProcess(
      setup.broker, container: setup.container, machine: "m1",
      extra: ["--allow-remote-writes", "--history", "2"])
    defer { bridge.stop() }
    let topic = "wormhole/v1/machines/m1/bridge"
    let info = watcher.lines.wait { !BridgeTests.payloads($0, topic: topic).isEmpty }
    try #require(!info.isEmpty, "\(bridge.diagnostics)")
    // Each version seen by the bridge before the next is written.
    for value in ["first", "second", "third", "fourth"] {
      try setup.pass("greeting", "\"\(value)\"")
      try FleetDashBrokerTests.waitForVersion(setup, "m1", "greeting", summary: value)
    }
    let sequences = try RemoteWriteTests.records(setup).filter { $0.identifier == "greeting" }.map(\.sequence)
    try #require(sequences.count == 4)
    let client = RemoteWriteClient(broker: setup.broker.address, timeout: 10)
    let directory = FileName(setup.container)
    let evicted = try client.perform(
      .replayRecord, on: "m1", directory: directory, identifier: "greeting", replayOf: sequences[0])
    #expect(!evicted.isOK, "\(evicted)")
    let reason = evicted.error ?? ""
    #expect(
      reason.contains("the version record \(sequences[0]) wrote is no longer kept"), "\(reason)")
    #expect(reason.contains("the bridge keeps 2 earlier versions of a mailbox"), "\(reason)")
    #expect(reason.contains("nearest kept: record \(sequences[1]) "), "\(reason)")
    #expect(try RemoteWriteTests.value(setup, "greeting") == .string("fourth"))
    let kept = try client.perform(
      .replayRecord, on: "m1", directory: directory, identifier: "greeting", replayOf: sequences[1])
    #expect(kept.isOK, "\(kept) \(bridge.diagnostics)")
    #expect(try RemoteWriteTests.value(setup, "greeting") == .string("second"))
  }

  /// As the dashboard's: a whole number of at least 1, else a usage error (exit 2) before the
  /// broker is reached.
  @Test func aHistoryThatIsNotAWholeNumberOfAtLeastOneIsAUsageError() throws {
    let home = TemporaryDirectory(prefix: "bridge-history")
    defer { home.remove() }
    for bad in ["0", "-1", "two", ""] {
      let result = try WormholeChild.run([
        "bridge", "--broker", "mqtt://127.0.0.1:1", "--container", home.path, "--history", bad,
      ])
      #expect(result.status == 2, "\(bad): \(result.errors)")
      #expect(
        result.errors.contains("--history takes a whole number of at least 1"), "\(bad): \(result.errors)")
    }
  }
}
