import Foundation
import Glibc
import TestSupport
import Testing

/// `wormhole-tui bridge` and `dump --broker` against a mosquitto of the test's own, read with
/// `mosquitto_sub` as any MQTT tool would read them.
@Suite(
  .enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"), .serialized)
struct BridgeTests {
  /// A container directory, its real path (the model's directory name), and a broker.
  struct Setup {
    let broker: TestBroker
    let directory = TemporaryDirectory(prefix: "bridge-test")
    /// Without `//` or symbolic links: the path the model names the directory by.
    var container: String { URL(fileURLWithPath: directory.path + "/container").standardizedFileURL.path }
    var containerLevel: String { topicLevel(container) }

    init() throws {
      broker = try TestBroker()
      try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
    }

    func mailboxTopic(_ machine: String, _ identifier: String) -> String {
      "wormhole/v1/machines/\(topicLevel(machine))/mailboxes/\(containerLevel)/\(topicLevel(identifier))"
    }

    func pass(_ identifier: String, _ value: String) throws {
      let result = try runWormhole(["pass", identifier, value, "--container", container])
      #expect(result.status == 0, "pass \(identifier) failed")
    }

    func clear(_ identifier: String) throws {
      let result = try runWormhole(["clear", identifier, "--container", container])
      #expect(result.status == 0, "clear \(identifier) failed")
    }

    func stop() {
      broker.stop()
      directory.remove()
    }
  }

  /// The payloads `mosquitto_sub -v` printed for `topic`, oldest first.
  static func payloads(_ lines: [String], topic: String) -> [String] {
    lines.compactMap { line in
      guard line == topic || line.hasPrefix(topic + " ") else { return nil }
      return String(line.dropFirst(min(line.count, topic.count + 1)))
    }
  }

  /// How `mosquitto_sub -v` prints an empty payload (a removed retained message).
  static func isEmptyPayload(_ payload: String) -> Bool { payload.isEmpty || payload == "(null)" }

  @Test func aPassAndAClearUpdateTheRetainedMailboxTopicAndThenRemoveIt() throws {
    let setup = try Setup()
    defer { setup.stop() }
    let watcher = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/#")
    defer { watcher.stop() }
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { bridge.stop() }
    let presence = "wormhole/v1/machines/m1/presence"
    try #require(
      Self.payloads(
        watcher.lines.wait { Self.payloads($0, topic: presence).contains("online") }, topic: presence
      ).contains("online"))
    try setup.pass("greeting", "\"hello\"")
    let topic = setup.mailboxTopic("m1", "greeting")
    let passed = watcher.lines.wait {
      Self.payloads($0, topic: topic).contains { $0.contains("\"present\":true") }
    }
    let payload = try #require(Self.payloads(passed, topic: topic).last)
    #expect(payload.contains("\"identifier\":\"greeting\""))
    #expect(payload.contains("hello"), "the summary: \(payload)")
    #expect(payload.contains("\"archive_base64\":\"YnBsaXN0"), "an archive starts with bplist: \(payload)")
    try setup.clear("greeting")
    let cleared = watcher.lines.wait {
      Self.payloads($0, topic: topic).contains { $0.isEmpty || $0 == "(null)" }
    }
    #expect(Self.payloads(cleared, topic: topic).last.map { $0.isEmpty || $0 == "(null)" } == true)
    // A late subscriber finds no retained message for the cleared mailbox, but the other one.
    try setup.pass("other", "1")
    _ = watcher.lines.wait { !Self.payloads($0, topic: setup.mailboxTopic("m1", "other")).isEmpty }
    let late = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/#")
    defer { late.stop() }
    let seen = late.lines.wait { lines in
      !Self.payloads(lines, topic: setup.mailboxTopic("m1", "other")).isEmpty
        && !Self.payloads(lines, topic: presence).isEmpty
    }
    #expect(!Self.payloads(seen, topic: setup.mailboxTopic("m1", "other")).isEmpty)
    #expect(Self.payloads(seen, topic: topic).isEmpty, "\(seen)")
  }

  @Test func aLateSubscriberSeesTheCurrentMailboxesAsRetainedMessages() throws {
    let setup = try Setup()
    defer { setup.stop() }
    try setup.pass("first", "1")
    try setup.pass("second", "2")
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { bridge.stop() }
    let watcher = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/mailboxes/#")
    _ = watcher.lines.wait { $0.count >= 2 }
    watcher.stop()
    // `%r` is the retained flag: a subscriber that comes later gets both at once, kept by the broker.
    let late = try Subscriber(
      setup.broker, filter: "wormhole/v1/machines/m1/mailboxes/#", extra: ["-F", "%r %t"])
    defer { late.stop() }
    let lines = late.lines.wait { $0.count >= 2 }
    #expect(
      Set(lines) == ["1 \(setup.mailboxTopic("m1", "first"))", "1 \(setup.mailboxTopic("m1", "second"))"],
      "\(lines)")
  }

  @Test func trafficEntriesArriveInTheOrderTheyHappened() throws {
    let setup = try Setup()
    defer { setup.stop() }
    let watcher = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/#")
    defer { watcher.stop() }
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { bridge.stop() }
    _ = watcher.lines.wait { Self.payloads($0, topic: "wormhole/v1/machines/m1/presence").contains("online") }
    let names = (0..<5).map { "step\($0)" }
    for name in names { try setup.pass(name, "1") }
    let topic = "wormhole/v1/machines/m1/traffic"
    func passedOrder(_ lines: [String]) -> [String] {
      Self.payloads(lines, topic: topic).filter { $0.contains("\"kind\":\"passed\"") }.compactMap { line in
        names.first { line.contains("\"identifier\":\"\($0)\"") }
      }
    }
    let lines = watcher.lines.wait { passedOrder($0).count >= names.count }
    #expect(passedOrder(lines) == names, "\(Self.payloads(lines, topic: topic))")
  }

  @Test func aKilledBridgeIsAnnouncedOfflineByItsWill() throws {
    let setup = try Setup()
    defer { setup.stop() }
    let watcher = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/presence")
    defer { watcher.stop() }
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { bridge.stop() }
    try #require(
      watcher.lines.wait { $0.contains("wormhole/v1/machines/m1/presence online") }.contains(
        "wormhole/v1/machines/m1/presence online"))
    bridge.stop(SIGKILL)
    let lines = watcher.lines.wait(seconds: 5) { $0.last == "wormhole/v1/machines/m1/presence offline" }
    #expect(lines.last == "wormhole/v1/machines/m1/presence offline", "\(lines)")
  }

  /// Killed, then restarted after a mailbox was cleared meanwhile: the new bridge empties the
  /// retained topic the first one left, so the broker ends equal to the disk.
  @Test func aRestartedBridgeRemovesWhatWasClearedWhileNoBridgeRan() throws {
    let setup = try Setup()
    defer { setup.stop() }
    try setup.pass("kept", "1")
    try setup.pass("gone", "2")
    let watcher = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/mailboxes/#")
    defer { watcher.stop() }
    let first = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { first.stop() }
    let gone = setup.mailboxTopic("m1", "gone")
    let published = watcher.lines.wait { !Self.payloads($0, topic: gone).isEmpty }
    try #require(!Self.payloads(published, topic: gone).isEmpty, "\(first.diagnostics)")
    first.stop(SIGKILL)
    try setup.clear("gone")
    let second = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { second.stop() }
    let emptied = watcher.lines.wait { Self.payloads($0, topic: gone).last.map(Self.isEmptyPayload) == true }
    #expect(
      Self.payloads(emptied, topic: gone).last.map(Self.isEmptyPayload) == true, "\(second.diagnostics)")
    let late = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/#")
    defer { late.stop() }
    let seen = late.lines.wait { lines in
      !Self.payloads(lines, topic: setup.mailboxTopic("m1", "kept")).isEmpty
        && !Self.payloads(lines, topic: "wormhole/v1/machines/m1/presence").isEmpty
    }
    #expect(!Self.payloads(seen, topic: setup.mailboxTopic("m1", "kept")).isEmpty)
    #expect(Self.payloads(seen, topic: gone).isEmpty, "\(seen)")
  }

  @Test func dumpBrokerPrintsEachMachineWithItsPresenceAndMailboxes() throws {
    let setup = try Setup()
    defer { setup.stop() }
    try setup.pass("greeting", "\"hello\"")
    let watcher = try Subscriber(setup.broker, filter: "wormhole/v1/machines/#")
    defer { watcher.stop() }
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { bridge.stop() }
    _ = watcher.lines.wait { !Self.payloads($0, topic: setup.mailboxTopic("m1", "greeting")).isEmpty }
    let text = try runWormhole(["dump", "--broker", setup.broker.url])
    #expect(text.status == 0)
    #expect(text.output.hasPrefix("machine m1 (online, 1 mailbox)\n"), "\(text.output)")
    #expect(text.output.contains("\n    greeting "), "\(text.output)")
    #expect(text.output.contains("hello"), "\(text.output)")
    // Stopped cleanly, the bridge says offline itself; its mailboxes stay retained.
    bridge.stop(SIGTERM)
    #expect(bridge.process.terminationStatus == 0)
    let json = try runWormhole(["dump", "--broker", setup.broker.url, "--json"])
    #expect(json.status == 0)
    #expect(
      json.output.hasPrefix("{\"machines\":[{\"name\":\"m1\",\"presence\":\"offline\""), "\(json.output)")
    #expect(json.output.contains("\"identifier\":\"greeting\",\"identifier_bytes\":null,\"payload\":{"))
    #expect(json.output.hasSuffix(",\"dropped\":0}\n"), "\(json.output)")
  }

  @Test func hostileIdentifiersStayInsideOneTopicLevelAndStrangersAreDropped() throws {
    let setup = try Setup()
    defer { setup.stop() }
    let identifier = "x+y#z%"
    let machine = "a/b+#"
    try setup.pass(identifier, "1")
    let watcher = try Subscriber(setup.broker, filter: "wormhole/v1/machines/#")
    defer { watcher.stop() }
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: machine)
    defer { bridge.stop() }
    let topic = setup.mailboxTopic(machine, identifier)
    #expect(topic.hasPrefix("wormhole/v1/machines/a%2Fb%2B%23/mailboxes/%2F"))
    #expect(topic.hasSuffix("/x%2By%23z%25"))
    let lines = watcher.lines.wait { !Self.payloads($0, topic: topic).isEmpty }
    #expect(!Self.payloads(lines, topic: topic).isEmpty, "\(lines) \(bridge.diagnostics)")
    // A stranger's retained messages under the prefix: a bad escape, a payload that is not JSON.
    for (strangerTopic, payload) in [
      ("wormhole/v1/machines/evil%2/presence", "online"),
      ("wormhole/v1/machines/evil/mailboxes/d/not-json", "\u{1B}[2J{"),
    ] {
      let publish = try ChildProcess(
        "/usr/bin/mosquitto_pub",
        arguments: [
          "-h", "127.0.0.1", "-p", "\(setup.broker.address.port)", "-r", "-q", "1", "-t", strangerTopic, "-m",
          payload,
        ])
      publish.waitUntilExit()
      #expect(publish.terminationStatus == 0)
    }
    let dump = try runWormhole(["dump", "--broker", setup.broker.url])
    #expect(dump.output.hasPrefix("machine a/b+# (online, 1 mailbox)\n"), "\(dump.output)")
    #expect(dump.output.contains("\n    x+y#z% "), "\(dump.output)")
    #expect(!dump.output.contains("evil"), "\(dump.output)")
    let json = try runWormhole(["dump", "--broker", setup.broker.url, "--json"])
    #expect(json.output.hasSuffix(",\"dropped\":2}\n"), "\(json.output)")
  }
}
