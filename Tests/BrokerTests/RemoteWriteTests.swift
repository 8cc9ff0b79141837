import FleetClient
import FleetProtocol
import Foundation
import KeyedArchive
import MQTTClient
import TestSupport
import Testing
import Wormhole
import WormholeVocabulary

/// Remote pass, clear and replay through `bridge --allow-remote-writes`, with `pass --broker` and
/// `clear --broker` and the `RemoteWriteClient`, against a mosquitto of the test's own; hostile
/// requests published by hand.
@Suite(
  .enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"), .serialized)
struct RemoteWriteTests {
  typealias Setup = BridgeTests.Setup

  /// Starts a bridge on `setup`'s container and waits until `mosquitto_sub` sees its retained
  /// bridge info, which it returns (the bridge subscribes to requests before publishing it).
  static func bridge(_ setup: Setup, machine: String, writes: Bool) throws -> (BridgeProcess, String) {
    // Live messages only (`-R`): an earlier bridge of the machine left its info retained, which
    // would end the wait before this one is connected (and its requests subscribed).
    let topic = "wormhole/v1/machines/\(machine)/bridge"
    let watcher = try Subscriber(setup.broker, filter: topic, extra: ["-R"])
    defer { watcher.stop() }
    let bridge = try BridgeProcess(
      setup.broker, container: setup.container, machine: machine,
      extra: writes ? ["--allow-remote-writes"] : [])
    let lines = watcher.lines.wait { !BridgeTests.payloads($0, topic: topic).isEmpty }
    let info = try #require(BridgeTests.payloads(lines, topic: topic).last, "\(bridge.diagnostics)")
    return (bridge, info)
  }

  /// The container's journal, read with the library.
  static func records(_ setup: Setup) throws -> [TrafficRecord] {
    var options = Wormhole.Options()
    options.createsDirectory = false
    return try Wormhole(directory: setup.container, transitingType: .file, options: options).trafficRecords()
  }

  static func value(_ setup: Setup, _ identifier: String) throws -> ArchivedValue? {
    var options = Wormhole.Options()
    options.createsDirectory = false
    return try Wormhole(directory: setup.container, transitingType: .file, options: options).message(
      withIdentifier: identifier)
  }

  /// Runs the built `wormhole-tui`: its status, standard output and standard error.
  static func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    let directory = TemporaryDirectory(prefix: "remote-write-run")
    defer { directory.remove() }
    let process = try ChildProcess(
      wormholePath, arguments: arguments, standardOutput: .file(directory.path("output")),
      standardError: .file(directory.path("errors")))
    process.waitUntilExit()
    return (process.terminationStatus, directory.contents("output") ?? "", directory.contents("errors") ?? "")
  }

  @Test func remotePassClearAndReplayAreAppliedAndJournaledOnTheBridgesMachine() throws {
    let setup = try Setup()
    defer { setup.stop() }
    let (bridge, info) = try Self.bridge(setup, machine: "m1", writes: true)
    defer { bridge.stop() }
    #expect(info == "{\"version\":1,\"remote_writes\":true,\"reason\":null,\"mailboxes\":0}")
    let broker = ["--broker", setup.broker.url, "--machine", "m1"]
    // No mailbox published yet: the directory cannot be guessed.
    let guessed = try Self.run(["pass"] + broker + ["score", "1"])
    #expect(guessed.status == 2, "\(guessed.error)")
    #expect(guessed.error.contains("give --directory D"), "\(guessed.error)")
    let passed = try Self.run(
      ["pass"] + broker + ["--directory", setup.container, "score", "{\"points\":42}"])
    #expect(passed.status == 0, "\(passed.error) \(bridge.diagnostics)")
    #expect(
      try Self.value(setup, "score")
        == .dictionary([ArchivedEntry(key: .string("points"), value: .integer(42))]))
    // One directory published now: it is the default.
    let second = try Self.run(["pass"] + broker + ["other", "--string", "hi"])
    #expect(second.status == 0, "\(second.error) \(bridge.diagnostics)")
    #expect(try Self.value(setup, "other") == .string("hi"))
    var records = try Self.records(setup)
    let pass = try #require(records.first { $0.identifier == "score" && $0.kind == .pass })
    #expect(pass.sender == "bridge m1 (remote)")
    let cleared = try Self.run(["clear"] + broker + ["--directory", setup.container, "other"])
    #expect(cleared.status == 0, "\(cleared.error) \(bridge.diagnostics)")
    #expect(!FileManager.default.fileExists(atPath: setup.container + "/other.archive"))
    // A replay through the library client: the archive of the first pass, marked as its replay.
    let archive = try KeyedArchiveEncoder().encodeBytes(.integer(7))
    let client = RemoteWriteClient(broker: setup.broker.address, timeout: 10)
    let reply = try client.perform(
      .replay, on: "m1", directory: FileName(setup.container), identifier: "replayed", archive: archive,
      replayOf: pass.sequence)
    #expect(reply.isOK, "\(reply) \(bridge.diagnostics)")
    #expect(try Self.value(setup, "replayed") == .integer(7))
    records = try Self.records(setup)
    #expect(
      records.contains { $0.identifier == "other" && $0.kind == .clear && $0.sender == "bridge m1 (remote)" })
    let replay = try #require(records.first { $0.identifier == "replayed" })
    #expect(replay.replayOf == pass.sequence)
    #expect(reply.sequence == replay.sequence)
    // A replay that names no record (the dashboard's of a remote version) claims none: it is
    // journaled as what it is, a pass of that archive, never as a replay of record 0.
    let unnamed = try client.perform(
      .replay, on: "m1", directory: FileName(setup.container), identifier: "again", archive: archive)
    #expect(unnamed.isOK, "\(unnamed) \(bridge.diagnostics)")
    let again = try #require(try Self.records(setup).first { $0.identifier == "again" })
    #expect(again.replayOf == nil)
    #expect(again.kind == .pass)
    // A replay of a record the journal never wrote is refused, and writes nothing.
    let before = try Self.records(setup).count
    let invented = try client.perform(
      .replay, on: "m1", directory: FileName(setup.container), identifier: "invented", archive: archive,
      replayOf: 99_999_999)
    #expect(!invented.isOK, "\(invented)")
    #expect(invented.error?.contains("not in this directory's journal") == true, "\(invented)")
    #expect(try Self.records(setup).count == before)
    #expect(!FileManager.default.fileExists(atPath: setup.container + "/invented.archive"))
  }

  @Test func aReadOnlyBridgeSaysWhyAndARemoteWriteChangesNeitherDiskNorJournal() throws {
    let setup = try Setup()
    defer { setup.stop() }
    try setup.pass("kept", "1")
    let before = try Self.records(setup)
    let (bridge, info) = try Self.bridge(setup, machine: "ro", writes: false)
    defer { bridge.stop() }
    #expect(
      info
        == "{\"version\":1,\"remote_writes\":false,\"reason\":\"bridge started without --allow-remote-writes\",\"mailboxes\":1}"
    )
    let broker = ["--broker", setup.broker.url, "--machine", "ro", "--directory", setup.container]
    let passed = try Self.run(["pass"] + broker + ["kept", "2"])
    #expect(passed.status == 3)
    #expect(passed.error.contains("bridge started without --allow-remote-writes"), "\(passed.error)")
    let cleared = try Self.run(["clear"] + broker + ["kept"])
    #expect(cleared.status == 3)
    #expect(try Self.value(setup, "kept") == .integer(1))
    #expect(try Self.records(setup) == before)
    // A machine with no bridge, and a bridge stopped cleanly (its info emptied, presence offline).
    let nobody = try Self.run(["pass", "--broker", setup.broker.url, "--machine", "nobody", "x", "1"])
    #expect(nobody.status == 3)
    #expect(nobody.error.contains("no bridge has published for machine nobody"), "\(nobody.error)")
    bridge.stop(SIGTERM)
    let stopped = try Self.run(["pass"] + broker + ["kept", "2"])
    #expect(stopped.status == 3)
    #expect(stopped.error.contains("is offline"), "\(stopped.error)")
  }

  @Test func aUsageErrorExitsTwo() throws {
    let missing = try Self.run(["pass", "--broker", "mqtt://127.0.0.1:1", "x", "1"])
    #expect(missing.status == 2)
    #expect(missing.error.contains("--machine"), "\(missing.error)")
    let local = try Self.run([
      "clear", "--broker", "mqtt://127.0.0.1:1", "--machine", "m", "--group", "g", "x",
    ])
    #expect(local.status == 2)
    let both = try Self.run(["clear", "--broker", "mqtt://127.0.0.1:1", "--machine", "m", "--all", "x"])
    #expect(both.status == 2)
  }

  /// Requests published by hand, as anyone on the broker could: each is refused with the reason,
  /// said on the bridge's standard error, and nothing is written, inside the container or out.
  @Test func hostileRequestsAreRefusedWithTheReasonAndWriteNothing() throws {
    let setup = try Setup()
    defer { setup.stop() }
    let (bridge, _) = try Self.bridge(setup, machine: "m1", writes: true)
    defer { bridge.stop() }
    let replies = BridgeTopics.replies(client: "hostile")
    let requester = try MQTTClientTests.Recorder(setup.broker, identifier: "hostile")
    try requester.subscribe(replies, probe: replies)
    let good = try KeyedArchiveEncoder().encodeBytes(.integer(1))
    let base64 = Data(good).base64EncodedString()
    func request(_ id: String, _ fields: String) -> [UInt8] {
      Array("{\"version\":1,\"id\":\"\(id)\",\"reply_to\":\"\(replies)\",\(fields)}".utf8)
    }
    let container = setup.container
    let huge = Data(repeating: 0x41, count: RemoteRequest.maximumArchiveByteCount + 1).base64EncodedString()
    let cases: [(id: String, payload: [UInt8], reason: String)] = [
      (
        "escape",
        request(
          "escape",
          "\"op\":\"pass\",\"directory\":\"\(container)/..\",\"identifier\":\"x\",\"archive_base64\":\"\(base64)\""
        ),
        "is not one this bridge publishes"
      ),
      (
        "elsewhere", request("elsewhere", "\"op\":\"pass\",\"directory\":\"/tmp\",\"identifier\":\"x\""),
        "is not one this bridge publishes"
      ),
      (
        "identifier",
        request(
          "identifier",
          "\"op\":\"pass\",\"directory\":\"\(container)\",\"identifier\":\"../x\",\"archive_base64\":\"\(base64)\""
        ),
        "it contains '/'"
      ),
      (
        "archive",
        request(
          "archive",
          "\"op\":\"pass\",\"directory\":\"\(container)\",\"identifier\":\"x\",\"archive_base64\":\"YnBsaXN0MDBnYXJiYWdl\""
        ),
        "refused by the inspector"
      ),
      (
        "huge",
        request(
          "huge",
          "\"op\":\"replay\",\"directory\":\"\(container)\",\"identifier\":\"x\",\"archive_base64\":\"\(huge)\""
        ),
        "larger than"
      ),
      (
        "op", request("op", "\"op\":\"rm\",\"directory\":\"\(container)\",\"identifier\":\"x\""), "unknown op"
      ),
    ]
    for (id, payload, reason) in cases {
      try requester.client.publish(payload, to: BridgeTopics.requests(machine: "m1"), quality: .atLeastOnce)
      let events = requester.events.wait { events in
        events.contains {
          if case .received(let message) = $0 {
            (try? RemoteReply(payload: message.payload))?.id == id
          } else {
            false
          }
        }
      }
      let reply = events.lazy.compactMap { event -> RemoteReply? in
        guard case .received(let message) = event, let reply = try? RemoteReply(payload: message.payload),
          reply.id == id
        else { return nil }
        return reply
      }.first
      let refused = try #require(reply, "no reply to \(id): \(bridge.diagnostics)")
      #expect(!refused.isOK)
      #expect(refused.error?.contains(reason) == true, "\(id): \(refused)")
      #expect(bridge.waitForDiagnostic(containing: "refused request \(id)"), "\(bridge.diagnostics)")
    }
    // Above the payload limit: dropped by the bridge's client before it is read, and said.
    let oversized = [UInt8](repeating: 0x20, count: RemoteRequest.maximumPayloadByteCount + 1)
    try requester.client.publish(oversized, to: BridgeTopics.requests(machine: "m1"), quality: .atLeastOnce)
    #expect(
      bridge.waitForDiagnostic(containing: "dropped a message from the broker"), "\(bridge.diagnostics)")
    let written = try FileManager.default.contentsOfDirectory(atPath: container).filter {
      $0.hasSuffix(".archive")
    }
    #expect(written.isEmpty, "\(written)")
    let parent = URL(fileURLWithPath: container).deletingLastPathComponent().path
    #expect(!FileManager.default.fileExists(atPath: parent + "/x.archive"))
    #expect(try Self.records(setup).isEmpty)
  }

  /// QoS 1 may deliver a request twice: the second is answered with the first's reply and not
  /// applied again (one journal record).
  @Test func aRequestDeliveredTwiceIsAppliedOnce() throws {
    let setup = try Setup()
    defer { setup.stop() }
    let (bridge, _) = try Self.bridge(setup, machine: "m1", writes: true)
    defer { bridge.stop() }
    let replies = BridgeTopics.replies(client: "twice")
    let requester = try MQTTClientTests.Recorder(setup.broker, identifier: "twice")
    try requester.subscribe(replies, probe: replies)
    let request = RemoteRequest(
      id: "once", operation: .pass, directory: FileName(setup.container), identifier: "x",
      archive: try KeyedArchiveEncoder().encodeBytes(.integer(1)), replyTo: replies)
    for _ in 0..<2 {
      try requester.client.publish(
        request.payload, to: BridgeTopics.requests(machine: "m1"), quality: .atLeastOnce)
    }
    func answers(_ events: [MQTTEvent]) -> [RemoteReply] {
      events.compactMap { event in
        guard case .received(let message) = event, !message.payload.isEmpty else { return nil }
        return try? RemoteReply(payload: message.payload)
      }
    }
    let got = answers(requester.events.wait { answers($0).count >= 2 })
    #expect(got.count == 2, "\(bridge.diagnostics)")
    #expect(
      got.allSatisfy { $0.isOK && $0.id == "once" } && got.first?.sequence == got.last?.sequence, "\(got)")
    #expect(try Self.records(setup).filter { $0.identifier == "x" }.count == 1)
  }
}
