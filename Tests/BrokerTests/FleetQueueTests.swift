import Dashboard
import DashboardRuntime
import FleetModel
import FleetProtocol
import Foundation
import Glibc
import MQTTClient
import Synchronization
import TestSupport
import Testing
import WormholeVocabulary

/// A fleet larger than mosquitto's default queue (`max_queued_messages 1000`) read late, by
/// `dump --broker` and by the dashboard's ``FleetSource``, from a broker with the default
/// configuration: the retained state must arrive whole, and a shortfall must be said.
@Suite(
  .enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"), .serialized,
  .hangLimit)
struct FleetQueueTests {
  static let machines = 100
  static let mailboxes = 50
  static let directory: FileName = "/srv/ci/group.queue"

  /// A mailbox payload as a bridge publishes it, about 900 bytes as a small archive makes it.
  static func payload(machine: Int, mailbox: Int) -> [UInt8] {
    let archive = Data((0..<600).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ machine &+ mailbox) })
    var text = "{\"directory\":\"\(directory)\",\"directory_bytes\":null"
    text += ",\"mailbox\":{\"identifier\":\"mailbox-\(mailbox)\",\"identifier_bytes\":null,\"present\":true"
    text += ",\"bytes\":600,\"modified\":null,\"versions\":1,\"history\":0,\"last_change\":null"
    text += ",\"last_writer\":\"app\",\"seq\":1,\"summary\":\"m\(machine) b\(mailbox)\",\"error\":null}"
    text += ",\"archive_base64\":\"\(archive.base64EncodedString())\",\"archive_note\":null}"
    return Array(text.utf8)
  }

  /// Publishes `machines` machines' retained presence, bridge info (claiming `claimed` mailboxes
  /// each, or no count) and `mailboxes` mailboxes, raw, and returns once the broker has them all
  /// (one client's messages are handled in order: the last one's acknowledgement).
  static func publishFleet(
    _ broker: TestBroker, machines: Int = machines, mailboxes: Int = mailboxes, claimed: Int? = nil
  ) throws {
    let client = try MQTTClient(clientIdentifier: "fleet-queue-publisher-\(getpid())", cleanSession: true) {
      _ in
    }
    defer { client.disconnect() }
    try client.connect(to: broker.address)
    var messages: [MQTTMessage] = []
    for machine in 0..<machines {
      let name = "m\(machine)"
      messages.append(
        MQTTMessage(
          topic: BridgeTopics.presence(machine: name), payload: Array("online".utf8), quality: .atLeastOnce,
          isRetained: true))
      let info = BridgeInfo(
        allowsRemoteWrites: false, reason: "bridge started without --allow-remote-writes",
        mailboxCount: claimed)
      messages.append(
        MQTTMessage(
          topic: BridgeTopics.bridge(machine: name), payload: info.payload, quality: .atLeastOnce,
          isRetained: true))
      for mailbox in 0..<mailboxes {
        messages.append(
          MQTTMessage(
            topic: BridgeTopics.mailbox(
              machine: name, directory: directory, identifier: FileName("mailbox-\(mailbox)")),
            payload: payload(machine: machine, mailbox: mailbox), quality: .atLeastOnce, isRetained: true))
      }
    }
    guard let last = messages.popLast() else { return }
    for start in stride(from: 0, to: messages.count, by: 500) {
      _ = try client.publish(Array(messages[start..<min(start + 500, messages.count)]))
    }
    let taken = try client.publish(
      last.payload, to: last.topic, quality: .atLeastOnce, retained: true, timeout: 60)
    try #require(taken, "the broker did not take the fleet's retained messages in 60 s")
  }

  /// With mosquitto's defaults, a QoS 1 subscription was handed 1,020 of the 5,200 retained
  /// messages (20 in flight and 1,000 queued; the rest dropped without a word): `dump --broker`
  /// printed 20 machines. It subscribes at QoS 0 now, which mosquitto does not queue.
  @Test func aLateDumpOfAHundredMachinesOfFiftyMailboxesSeesThemAllOnADefaultBroker() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    try Self.publishFleet(broker)
    let dump = try runWormhole(["dump", "--broker", broker.url])
    #expect(dump.status == 0)
    let machines = dump.output.split(separator: "\n").filter { $0.hasPrefix("machine ") }
    #expect(machines.count == Self.machines, "\(machines.prefix(3)) …")
    #expect(machines.allSatisfy { $0.hasSuffix("(online, 50 mailboxes)") }, "\(machines.prefix(3)) …")
  }

  /// The dashboard's source, subscribed after the fleet was published to a default broker, is
  /// handed every retained message (5,200).
  @Test func aLateDashboardSourceIsHandedTheWholeFleetByADefaultBroker() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    try Self.publishFleet(broker)
    let expected = Self.machines * (Self.mailboxes + 2)
    let received = Mutex(0)
    let whole = DispatchSemaphore(value: 0)
    let source = FleetSource(broker: broker.address, clientIdentifier: "fleet-queue-\(getpid())")
    source.start { message in
      guard case .fleet(let batch, _) = message else { return }
      let count = batch.reduce(0) { total, message in
        switch message {
        case .presence, .bridgeInfo, .mailbox: total + 1
        default: total
        }
      }
      let reached = received.withLock { total -> Bool in
        let before = total
        total += count
        return before < expected && total >= expected
      }
      if reached { whole.signal() }
    }
    defer { source.cancel() }
    let arrived = whole.wait(timeout: .now() + 20) == .success
    #expect(arrived, "\(received.withLock { $0 }) of \(expected) retained messages arrived")
  }

  /// A bridge info that claims more mailboxes than arrive (as when a broker dropped some) is
  /// said by `dump --broker`: under the machine, on standard error, and in `--json`.
  @Test func aDumpSaysWhenFewerMailboxesArriveThanTheBridgeSaysItPublishes() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    try Self.publishFleet(broker, machines: 2, mailboxes: 30, claimed: 50)
    let dump = try WormholeChild.run(["dump", "--broker", broker.url])
    #expect(dump.status == 0)
    #expect(
      dump.output.contains(
        "machine m0 (online, 30 mailboxes)\n  20 of the 50 mailboxes its bridge publishes did not arrive: the broker may have dropped them (max_queued_messages)\n"
      ), "\(dump.output)")
    #expect(
      dump.errors.contains(
        "machine m1: 30 of 50 mailboxes arrived: the broker may have dropped them (max_queued_messages)"),
      "\(dump.errors)")
    let json = try runWormhole(["dump", "--broker", broker.url, "--json"])
    #expect(
      json.output.hasPrefix(
        "{\"machines\":[{\"name\":\"m0\",\"presence\":\"online\",\"mailboxes_published\":50,"))
  }

  /// A bridge that says as many as arrive, or says nothing (before the count), is no shortfall.
  @Test func aMatchingOrAbsentCountIsNoShortfall() throws {
    var state = FleetState(historyDepth: 0)
    func info(_ machine: String, _ count: Int?) -> FleetInput {
      FleetInput(
        topic: BridgeTopics.bridge(machine: machine),
        payload: BridgeInfo(allowsRemoteWrites: true, mailboxCount: count).payload, isRetained: true)
    }
    func mailbox(_ machine: String, _ index: Int) -> FleetInput {
      FleetInput(
        topic: BridgeTopics.mailbox(
          machine: machine, directory: Self.directory, identifier: FileName("mailbox-\(index)")),
        payload: Self.payload(machine: 0, mailbox: index), isRetained: true)
    }
    state.apply([info("a", 2), mailbox("a", 0), mailbox("a", 1), info("b", nil), mailbox("b", 0)], at: 0)
    #expect(state.shortfalls.isEmpty, "\(state.shortfalls)")
    state.apply([info("b", 3)], at: 0)
    #expect(
      state.shortfalls == [
        "machine b: 1 of 3 mailboxes arrived: the broker may have dropped them (max_queued_messages)"
      ])
    #expect(state.machines["b"]?.missingMailboxCount == 2)
    #expect(
      try BridgeInfo(payload: Array(#"{"version":1,"remote_writes":true,"reason":null}"#.utf8)).mailboxCount
        == nil)
    #expect(throws: (any Error).self) {
      try BridgeInfo(payload: Array(#"{"version":1,"remote_writes":true,"reason":null,"mailboxes":-1}"#.utf8))
    }
  }
}
