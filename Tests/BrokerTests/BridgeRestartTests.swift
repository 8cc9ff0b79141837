import Foundation
import Glibc
import TestSupport
import Testing

/// A bridge killed with SIGKILL while mailboxes change, then started again: the broker ends
/// equal to the disk, for mailboxes changed, added and cleared while no bridge ran.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct BridgeRestartTests {
  @Test func aBridgeKilledWhileMailboxesChangedLeavesTheBrokerEqualToTheDiskOnceRestarted() throws {
    let setup = try BridgeTests.Setup()
    defer { setup.stop() }
    for identifier in ["kept", "changed", "gone"] { try setup.pass(identifier, "\"first \(identifier)\"") }
    let watcher = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/mailboxes/#")
    defer { watcher.stop() }
    let first = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { first.stop() }
    let all = ["kept", "changed", "gone"].map { setup.mailboxTopic("m1", $0) }
    let published = watcher.lines.wait { lines in
      all.allSatisfy { !BridgeTests.payloads(lines, topic: $0).isEmpty }
    }
    try #require(
      all.allSatisfy { !BridgeTests.payloads(published, topic: $0).isEmpty }, "\(first.diagnostics)")
    first.stop(SIGKILL)

    // While no bridge runs: one mailbox changes, one is added, one is cleared.
    try setup.pass("changed", "\"second changed\"")
    try setup.pass("added", "\"new\"")
    try setup.clear("gone")

    let second = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { second.stop() }
    let gone = setup.mailboxTopic("m1", "gone")
    let caughtUp = watcher.lines.wait { lines in
      BridgeTests.payloads(lines, topic: gone).last.map(BridgeTests.isEmptyPayload) == true
        && !BridgeTests.payloads(lines, topic: setup.mailboxTopic("m1", "added")).isEmpty
    }
    #expect(
      BridgeTests.payloads(caughtUp, topic: gone).last.map(BridgeTests.isEmptyPayload) == true,
      "\(second.diagnostics)")

    // What a subscriber that comes now is handed (the retained state) is what the disk holds.
    let late = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/mailboxes/#")
    defer { late.stop() }
    let onDisk = try diskArchives(setup.container)
    #expect(onDisk.keys.sorted() == ["added", "changed", "kept"])
    let expected = onDisk.keys.map { setup.mailboxTopic("m1", $0) }
    let retained = late.lines.wait { lines in
      expected.allSatisfy { topic in
        BridgeTests.payloads(lines, topic: topic).last.map {
          archive(in: $0) == onDisk[identifier(of: topic)]
        }
          == true
      }
    }
    for (name, bytes) in onDisk {
      let payload = BridgeTests.payloads(retained, topic: setup.mailboxTopic("m1", name)).last
      #expect(payload.flatMap(archive(in:)) == bytes, "\(name): \(payload ?? "nothing retained")")
    }
    #expect(BridgeTests.payloads(retained, topic: gone).isEmpty, "\(retained)")
    #expect(retained.count == onDisk.count, "\(retained)")
  }

  /// L7: a broker restarted without persistence forgets every retained message (CONNACK says
  /// no session is present); the bridge reconnects and publishes its presence, its bridge info
  /// and every mailbox again, including what changed while the broker was down, so that a
  /// dashboard that subscribes afterwards is handed what the disk holds.
  @Test func aBrokerRestartedWithoutPersistenceIsHandedThePresenceAndEveryMailboxAgain() throws {
    let setup = try BridgeTests.Setup()
    defer { setup.stop() }
    for identifier in ["kept", "changed", "gone"] { try setup.pass(identifier, "\"first \(identifier)\"") }
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { bridge.stop() }
    let first = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/#")
    let all = ["kept", "changed", "gone"].map { setup.mailboxTopic("m1", $0) }
    let published = first.lines.wait { lines in
      all.allSatisfy { !BridgeTests.payloads(lines, topic: $0).isEmpty }
    }
    first.stop()
    try #require(
      all.allSatisfy { !BridgeTests.payloads(published, topic: $0).isEmpty }, "\(bridge.diagnostics)")

    setup.broker.kill()
    // While the broker is down: one mailbox changes, one is added, one is cleared.
    try setup.pass("changed", "\"second changed\"")
    try setup.pass("added", "\"new\"")
    try setup.clear("gone")
    try setup.broker.restart()

    let late = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/#")
    defer { late.stop() }
    let onDisk = try diskArchives(setup.container)
    #expect(onDisk.keys.sorted() == ["added", "changed", "kept"])
    let presence = "wormhole/v1/machines/m1/presence"
    let info = "wormhole/v1/machines/m1/bridge"
    let retained = late.lines.wait(seconds: 20) { lines in
      BridgeTests.payloads(lines, topic: presence).last == "online"
        && !BridgeTests.payloads(lines, topic: info).isEmpty
        && onDisk.allSatisfy { name, bytes in
          BridgeTests.payloads(lines, topic: setup.mailboxTopic("m1", name)).last.flatMap(archive(in:))
            == bytes
        }
    }
    #expect(BridgeTests.payloads(retained, topic: presence).last == "online", "\(bridge.diagnostics)")
    #expect(
      BridgeTests.payloads(retained, topic: info).last?.contains("\"remote_writes\":false") == true,
      "\(retained)")
    for (name, bytes) in onDisk {
      let payload = BridgeTests.payloads(retained, topic: setup.mailboxTopic("m1", name)).last
      #expect(payload.flatMap(archive(in:)) == bytes, "\(name): \(payload ?? "nothing published")")
    }
    #expect(
      BridgeTests.payloads(retained, topic: setup.mailboxTopic("m1", "gone")).allSatisfy(
        BridgeTests.isEmptyPayload),
      "\(retained)")
  }
}

/// Each `IDENTIFIER.archive` in `directory`, by identifier.
private func diskArchives(_ directory: String) throws -> [String: [UInt8]] {
  var found: [String: [UInt8]] = [:]
  for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".archive")
  {
    let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
    found[String(name.dropLast(".archive".count))] = [UInt8](data)
  }
  return found
}

/// The last topic level, which for these plain identifiers is the identifier itself.
private func identifier(of topic: String) -> String {
  String(topic.split(separator: "/").last ?? "")
}

/// The archive bytes a mailbox payload carries (`archive_base64`), or `nil`.
private func archive(in payload: String) -> [UInt8]? {
  guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
    let text = object["archive_base64"] as? String, let data = Data(base64Encoded: text)
  else { return nil }
  return [UInt8](data)
}
