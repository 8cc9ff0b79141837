import Dispatch
import FleetProtocol
import Foundation
import Glibc
import KeyedArchive
import MQTTClient
import Synchronization
import WormholeVocabulary

/// Machines that look bridged to a fleet dashboard, published raw with one MQTT client in the
/// payloads of the README's topic table (what `wormhole-tui bridge` publishes): each machine's
/// retained presence (`online`), bridge info (read-only) and mailboxes, one directory of them;
/// then, while ``startStreaming(changesPerSecond:)`` runs, mailbox changes spread over the
/// machines in turn, each a new retained payload and its traffic entry, as a bridge sends them.
final class SimulatedFleet: Sendable {
  let machineCount: Int
  let mailboxCount: Int
  /// The directory every machine's mailboxes are in, as its bridge names it (its whole path).
  static let directory: FileName = "/srv/ci/wormhole/group.bench"
  private let client: MQTTClient
  private let streaming = Mutex<Streaming>(Streaming())

  private struct Streaming {
    var changes = 0
    var done: DispatchSemaphore?
  }

  private let stop = Atomic<Bool>(false)

  init(broker: BrokerAddress, machines: Int, mailboxes: Int) throws {
    machineCount = machines
    mailboxCount = mailboxes
    client = try MQTTClient(clientIdentifier: "bench-fleet-\(getpid())", cleanSession: true) { _ in }
    try client.connect(to: broker)
  }

  /// The name of machine `index`.
  static func machine(_ index: Int) -> String { "ci-runner-\(index)" }

  /// Publishes every machine's retained state and returns once the broker has all of it (the
  /// last message's acknowledgement: one client's messages are handled in order).
  func publishRetained() throws {
    let info = BridgeInfo(allowsRemoteWrites: false, reason: "bridge started without --allow-remote-writes")
    var last: (payload: [UInt8], topic: String, archiveBytes: Int)?
    for machine in 0..<machineCount {
      let name = Self.machine(machine)
      try client.publish(
        Array("online".utf8), to: BridgeTopics.presence(machine: name), quality: .atLeastOnce, retained: true)
      try client.publish(
        info.payload, to: BridgeTopics.bridge(machine: name), quality: .atLeastOnce, retained: true)
      for mailbox in 0..<mailboxCount {
        let message = try mailboxMessage(machine: machine, mailbox: mailbox, version: 1)
        if machine == machineCount - 1 && mailbox == mailboxCount - 1 {
          last = message
        } else {
          try client.publish(message.payload, to: message.topic, quality: .atLeastOnce, retained: true)
        }
      }
    }
    if let last {
      guard
        try client.publish(last.payload, to: last.topic, quality: .atLeastOnce, retained: true, timeout: 60)
      else { throw BenchmarkFailure("the broker did not take the fleet's retained messages in 60 s") }
    }
  }

  /// Changes `changesPerSecond` mailboxes a second, each due at its time, machine after machine
  /// (so each machine's mailboxes change `changesPerSecond / machines` times a second), until
  /// ``stopStreaming()``.
  func startStreaming(changesPerSecond: Double) {
    stop.store(false, ordering: .relaxed)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread { [self] in
      defer { done.signal() }
      let start = now()
      var index = 0
      while !stop.load(ordering: .relaxed) {
        let due = start + Double(index) / changesPerSecond
        let wait = due - now()
        if wait > 0 { usleep(UInt32(wait * 1e6)) }
        let machine = index % machineCount
        let mailbox = (index / machineCount) % mailboxCount
        let version = 2 + index / (machineCount * mailboxCount)
        guard let change = try? mailboxMessage(machine: machine, mailbox: mailbox, version: version),
          (try? client.publish(change.payload, to: change.topic, quality: .atLeastOnce, retained: true))
            != nil,
          (try? client.publish(
            trafficEntry(machine: machine, mailbox: mailbox, version: version, bytes: change.archiveBytes),
            to: BridgeTopics.traffic(machine: Self.machine(machine)), quality: .atLeastOnce, retained: false))
            != nil
        else { return }
        index += 1
        streaming.withLock { $0.changes = index }
      }
    }
    streaming.withLock {
      $0.changes = 0
      $0.done = done
    }
    thread.start()
  }

  /// Stops the changes and returns how many were published.
  @discardableResult
  func stopStreaming() -> Int {
    stop.store(true, ordering: .relaxed)
    streaming.withLock { $0.done }?.wait()
    return streaming.withLock { $0.changes }
  }

  func disconnect() { client.disconnect() }

  private static let archiveEncoder = KeyedArchiveEncoder()

  /// Mailbox `mailbox` of machine `machine` at `version`: its topic and payload
  /// (`{"directory","directory_bytes","mailbox":{…as in dump --json…},"archive_base64","archive_note"}`).
  private func mailboxMessage(machine: Int, mailbox: Int, version: Int) throws -> (
    payload: [UInt8], topic: String, archiveBytes: Int
  ) {
    let value = ArchivedValue.dictionary([
      .init(key: .string("machine"), value: .integer(Int64(machine))),
      .init(key: .string("mailbox"), value: .integer(Int64(mailbox))),
      .init(key: .string("version"), value: .integer(Int64(version))),
      .init(key: .string("status"), value: .string(version.isMultiple(of: 2) ? "running" : "passed")),
    ])
    let archive = try Self.archiveEncoder.encodeBytes(value)
    let summary = (try? KeyedArchiveInspector().inspect(archive).summary(width: 200)) ?? ""
    let identifier = FileName("mailbox-\(mailbox)")
    let time = JSONText.string(TrafficRecord.timestamp(Int64(Date().timeIntervalSince1970 * 1000)))
    var text = "{\"directory\":\(JSONText.name(Self.directory)),\"directory_bytes\":null"
    text +=
      ",\"mailbox\":{\"identifier\":\(JSONText.name(identifier)),\"identifier_bytes\":null,\"present\":true"
    text += ",\"bytes\":\(archive.count),\"modified\":\(time),\"versions\":\(version),\"history\":0"
    text +=
      ",\"last_change\":\(time),\"last_writer\":\"app\",\"seq\":\(version),\"summary\":\(JSONText.string(summary))"
    text += ",\"error\":null},\"archive_base64\":\(JSONText.string(Data(archive).base64EncodedString()))"
    text += ",\"archive_note\":null}"
    let topic = BridgeTopics.mailbox(
      machine: Self.machine(machine), directory: Self.directory, identifier: identifier)
    return (Array(text.utf8), topic, archive.count)
  }

  /// The traffic entry of that change, as `dump --json --follow` writes it.
  private func trafficEntry(machine: Int, mailbox: Int, version: Int, bytes: Int) -> [UInt8] {
    let time = JSONText.string(TrafficRecord.timestamp(Int64(Date().timeIntervalSince1970 * 1000)))
    var line =
      "{\"id\":\(version),\"time\":\(time),\"kind\":\"passed\",\"directory\":\(JSONText.name(Self.directory))"
    line += ",\"directory_bytes\":null,\"identifier\":\"mailbox-\(mailbox)\",\"identifier_bytes\":null"
    line += ",\"transiting\":\"file\",\"bytes\":\(bytes),\"sender\":\"app\",\"pid\":\(4000 + machine)"
    line +=
      ",\"seq\":\(version),\"replay_of\":null,\"error\":null,\"device\":null,\"peer\":null,\"delivery\":null"
    line += ",\"transfer\":null,\"route\":null,\"payload\":null}"
    return Array(line.utf8)
  }
}
