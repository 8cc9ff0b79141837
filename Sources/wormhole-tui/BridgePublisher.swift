import Dispatch
import FleetProtocol
import MQTTClient
import MailboxModel
import MailboxWatcher
import PropertyList
import Synchronization
import WormholeVocabulary

/// Mirrors one machine's live model to a broker: each mailbox as a retained message (an empty
/// retained one once it is cleared or gone), each new traffic entry as a QoS 1 message, and the
/// machine's presence. Read-only: it applies nothing from the broker; it subscribes only to its
/// own mailbox topics, to empty the retained ones an earlier run left for mailboxes gone since.
///
/// A model update is published where the model hands it over, on the model's queue, as one
/// batch (``MQTTClient/publish(_:)``): no hand-off per update or per change, and entries leave in
/// the order the model recognized them. A mailbox is published again only when what its payload
/// says changed (an update that rescans directories republishes nothing that did not). On every
/// (re)connection the whole state is published again, so the broker ends equal to the disks
/// after a broker restart too, even one that forgot every retained message.
///
/// The newest traffic entries (``TrafficBacklog``: 500 at most, 256 KiB at most) are kept
/// retained on ``BridgeTopics/backlog(machine:)``, published at each connection and at most once
/// a second while entries come, so that a dashboard that starts late shows recent traffic.
final class BridgePublisher: Sendable {
  /// The largest archive copied, base64, into a mailbox's payload; above it the payload says so.
  static let archiveByteLimit = 256 << 10

  let machine: String
  /// Where connections are handled (off libmosquitto's network thread).
  private let queue = DispatchQueue(label: "wormhole.bridge.publish")
  /// Everything publishing touches, under one lock: a model update and a connection's full
  /// publication never interleave.
  private let state = Mutex(State())

  private struct State {
    var model: LiveModel?
    var client: MQTTClient?
    /// Whether the broker accepted the connection and it has not dropped since: nothing is
    /// published otherwise (libmosquitto must not be published to while `connect` runs on
    /// another thread), and each connection publishes the whole state anyway.
    var isConnected = false
    /// What each retained mailbox topic published with content said, so that vanished ones are
    /// emptied and unchanged ones not sent again.
    var published: [String: Stamp] = [:]
    /// Whether a publication of the traffic backlog is due (new entries came since the last).
    var isBacklogDue = false
    /// Whether this connection's bridge info was asked for (``announceInfo()``: after the
    /// requests' subscription), and the mailbox count it last said.
    var isInfoAnnounced = false
    var announcedCount: Int?
    /// Each directory's part of its mailboxes' topics
    /// (``mailboxTopic(machine:directory:identifier:prefixes:)``).
    var topicPrefixes: [FileName: String] = [:]
  }

  /// The bridge info, published with the number of mailboxes this bridge holds retained
  /// (``BridgeInfo/mailboxCount``), again whenever that number changes: a reader that got fewer
  /// (a broker drops what exceeds its queue without a word) can say so.
  let info: BridgeInfo?

  /// How long new traffic entries wait before the backlog is published again (with every
  /// entry that came meanwhile): at most one backlog a second.
  static let backlogInterval: DispatchTimeInterval = .seconds(1)

  /// What a mailbox's payload is made of, but its archive's bytes (a version's serial stands
  /// for them): equal stamps make equal payloads.
  private struct Stamp: Equatable {
    var serial: UInt64?
    var versionCount: Int
    var historyCount: Int
    var lastChange: Int64
    var sender: String?
    var sequence: UInt64?
    var error: String?

    init(_ mailbox: Mailbox) {
      serial = mailbox.current?.serial
      versionCount = mailbox.versionCount
      historyCount = mailbox.history.count
      lastChange = mailbox.lastChange
      sender = mailbox.current?.sender
      sequence = mailbox.current?.sequence
      error = mailbox.error
    }
  }

  init(machine: String, info: BridgeInfo? = nil) {
    self.machine = machine
    self.info = info
  }

  /// The connection dropped: publishing waits for the next ``connected()``.
  func disconnected() {
    state.withLock {
      $0.isConnected = false
      $0.isInfoAnnounced = false
      $0.announcedCount = nil
    }
  }

  /// Publishes the bridge info with the current mailbox count (called once the requests'
  /// subscription is made, so whoever sees the info can send a request that reaches the
  /// bridge); before this connection's full state, it goes out after it.
  func announceInfo() {
    state.withLock { state in
      state.isInfoAnnounced = true
      guard state.isConnected else { return }
      var batch: [MQTTMessage] = []
      appendInfo(to: &batch, in: &state, force: true)
      send(batch, in: state)
    }
  }

  /// The bridge info with the current count, when it changed (or `force`), at the end of
  /// `batch` when mailboxes were added, at its start when some went: a reader following the
  /// stream never sees more claimed than were sent.
  private func appendInfo(to batch: inout [MQTTMessage], in state: inout State, force: Bool = false) {
    guard let info, state.isInfoAnnounced else { return }
    let count = state.published.count
    guard force || count != state.announcedCount else { return }
    let decreased = state.announcedCount.map { count < $0 } ?? false
    state.announcedCount = count
    var counted = info
    counted.mailboxCount = count
    let message = message(counted.payload, to: BridgeTopics.bridge(machine: machine))
    if decreased { batch.insert(message, at: 0) } else { batch.append(message) }
  }

  /// Starts publishing `model` through `client` (both made by the caller, the client not yet
  /// connected: its `.connected` events should reach ``connected()``).
  func attach(model: LiveModel, client: MQTTClient) {
    state.withLock {
      $0.model = model
      $0.client = client
    }
  }

  /// The broker accepted the connection: presence, then everything (the broker may have
  /// forgotten all of it: a restart without persistence).
  func connected() {
    queue.async {
      let client = self.state.withLock { state -> MQTTClient? in
        state.isConnected = true
        state.published = [:]
        var batch = [self.message(Array("online".utf8), to: BridgeTopics.presence(machine: self.machine))]
        if let snapshot = state.model?.snapshot {
          self.appendAllMailboxes(of: snapshot, to: &batch, in: &state)
          batch.append(self.backlog(of: snapshot))
        }
        self.appendInfo(to: &batch, in: &state, force: true)
        self.send(batch, in: state)
        return state.client
      }
      // After the whole state: what the broker still holds from an earlier run arrives next.
      do throws(MQTTError) {
        // Not its own publications back (MQTT 5): a copy of each change, for nothing.
        try client?.subscribe(
          BridgeTopics.mailboxes(machine: self.machine), quality: .atLeastOnce, excludingOwn: true)
      } catch {
        diagnose("bridge: \(error.description)")
      }
    }
  }

  /// A retained message the broker still holds on one of this machine's mailbox topics (the
  /// bridge subscribes to its own `mailboxes/#` at each connection): one this bridge did not
  /// publish, left by an earlier run for a mailbox that is gone since, is emptied.
  func retainedSeen(_ message: MQTTMessage) {
    guard message.isRetained, !message.payload.isEmpty,
      case .mailbox(let owner, let directory, let identifier)? = BridgeTopics.kind(of: message.topic),
      owner == machine
    else { return }
    queue.async {
      self.state.withLock { state in
        guard let snapshot = state.model?.snapshot,
          snapshot.mailbox(identifier, in: directory)?.isOnDisk != true
        else { return }
        self.send([self.message([], to: message.topic)], in: state)
      }
    }
  }

  /// What the model's `onUpdate` hands over, published there (on the model's queue), as one batch.
  func modelUpdated(_ update: ModelUpdate) {
    state.withLock { state in
      guard state.isConnected, let snapshot = state.model?.snapshot else { return }
      var batch: [MQTTMessage] = []
      if update.directoriesChanged {
        // Vanished directories' prefixes go; the others are encoded again as needed.
        state.topicPrefixes = [:]
        appendAllMailboxes(of: snapshot, to: &batch, in: &state)
      } else {
        for (directory, identifier) in update.changedMailboxes {
          appendMailbox(directory: directory, identifier: identifier, of: snapshot, to: &batch, in: &state)
        }
      }
      let traffic = BridgeTopics.traffic(machine: machine)
      for entry in update.newTraffic {
        batch.append(message(Array(entry.jsonLine.utf8), to: traffic, retained: false))
      }
      appendInfo(to: &batch, in: &state)
      send(batch, in: state)
      if !update.newTraffic.isEmpty && !state.isBacklogDue {
        state.isBacklogDue = true
        queue.asyncAfter(deadline: .now() + Self.backlogInterval) { self.publishBacklog() }
      }
    }
  }

  /// The traffic backlog, again: the newest entries, retained (see ``TrafficBacklog``).
  private func publishBacklog() {
    state.withLock { state in
      state.isBacklogDue = false
      guard let snapshot = state.model?.snapshot else { return }
      send([backlog(of: snapshot)], in: state)
    }
  }

  /// The retained ``TrafficBacklog`` of the model's newest traffic entries.
  private func backlog(of snapshot: ModelState) -> MQTTMessage {
    let lines = snapshot.traffic.suffix(TrafficBacklog.entryLimit).map(\.jsonLine)
    return message(TrafficBacklog.payload(lines), to: BridgeTopics.backlog(machine: machine))
  }

  /// Publishes "offline" and waits (up to two seconds) until the broker has it: a bridge that
  /// stops cleanly sends no Last Will.
  func goOffline() {
    queue.sync {
      guard let client = state.withLock({ $0.client }) else { return }
      _ = try? client.publish(
        Array("offline".utf8), to: BridgeTopics.presence(machine: machine), quality: .atLeastOnce,
        retained: true,
        timeout: 2)
    }
  }

  /// Every mailbox of `snapshot` whose payload changed since it was last published, and an
  /// empty retained message for each published one that is gone.
  private func appendAllMailboxes(
    of snapshot: ModelState, to batch: inout [MQTTMessage], in state: inout State
  ) {
    var seen: Set<String> = []
    for directory in snapshot.sortedDirectories {
      for mailbox in directory.sortedMailboxes {
        let topic = appendMailbox(
          directory: directory.path, identifier: mailbox.identifier, of: snapshot, to: &batch, in: &state)
        if let topic { seen.insert(topic) }
      }
    }
    for topic in state.published.keys where !seen.contains(topic) {
      batch.append(message([], to: topic))
      state.published[topic] = nil
    }
  }

  /// One mailbox's payload when it changed since it was last published, or an empty retained
  /// message when it is cleared or gone (and was published); returns the topic when the mailbox
  /// holds content.
  @discardableResult
  private func appendMailbox(
    directory: FileName, identifier: FileName, of snapshot: ModelState, to batch: inout [MQTTMessage],
    in state: inout State
  ) -> String? {
    let topic = Self.mailboxTopic(
      machine: machine, directory: directory, identifier: identifier, prefixes: &state.topicPrefixes)
    guard let mailbox = snapshot.mailbox(identifier, in: directory), mailbox.isOnDisk else {
      // Emptied even when this run never published it: an earlier run may have.
      batch.append(message([], to: topic))
      state.published[topic] = nil
      return nil
    }
    let stamp = Stamp(mailbox)
    if state.published[topic] != stamp {
      batch.append(message(Self.payload(mailbox, directory: directory, in: snapshot), to: topic))
      state.published[topic] = stamp
    }
    return topic
  }

  /// ``BridgeTopics/mailbox(machine:directory:identifier:)``, with the directory's part (the
  /// machine's `mailboxes/` level and the directory's encoded path, the longer part) made once
  /// per directory and kept in `prefixes`: the bridge names a mailbox's topic at every change.
  static func mailboxTopic(
    machine: String, directory: FileName, identifier: FileName, prefixes: inout [FileName: String]
  ) -> String {
    let prefix: String
    if let known = prefixes[directory] {
      prefix = known
    } else {
      // `…/MACHINE/mailboxes/#` without its `#`.
      let level = BridgeTopics.mailboxes(machine: machine).dropLast()
      prefix = level + BridgeTopics.encoded(directory.bytes) + "/"
      prefixes[directory] = prefix
    }
    return prefix + BridgeTopics.encoded(identifier.bytes)
  }

  /// A mailbox's payload: `{"directory","directory_bytes","mailbox","archive_base64","archive_note"}`,
  /// `mailbox` as `dump --json` writes it; `archive_base64` the current archive's bytes, or
  /// `null` with the reason in `archive_note`. Built as bytes, the base64 written straight into
  /// them (it needs no JSON escaping): measured with `wormhole-bench broker`, building it as a
  /// string, the base64 escaped as one, took about a seventh of the bridge's time per change.
  static func payload(_ mailbox: Mailbox, directory: FileName, in state: ModelState) -> [UInt8] {
    var note: String?
    var archive: [UInt8]?
    if let current = mailbox.current {
      if current.size > archiveByteLimit {
        note = "the archive is \(current.size) bytes, above the bridge's limit of \(archiveByteLimit)"
      } else if let bytes = current.bytes {
        archive = bytes
      } else {
        note = "the model did not keep the archive's bytes"
      }
    } else {
      note = "the mailbox is unreadable"
    }
    var out: [UInt8] = []
    out.reserveCapacity(512 + (archive.map { ($0.count + 2) / 3 * 4 } ?? 0))
    JSONBytes.appendLiteral(#"{"directory":"#, to: &out)
    JSONBytes.appendName(directory, to: &out)
    JSONBytes.appendLiteral(#","directory_bytes":"#, to: &out)
    JSONBytes.appendNameBytes(directory, to: &out)
    JSONBytes.appendLiteral(#","mailbox":"#, to: &out)
    state.appendMailboxJSON(mailbox, width: 200, to: &out)
    JSONBytes.appendLiteral(#","archive_base64":"#, to: &out)
    if let archive {
      out.append(UInt8(ascii: "\""))
      appendBase64(archive, to: &out)
      out.append(UInt8(ascii: "\""))
    } else {
      out.append(contentsOf: "null".utf8)
    }
    JSONBytes.appendLiteral(#","archive_note":"#, to: &out)
    JSONBytes.appendString(orNull: note, to: &out)
    out.append(UInt8(ascii: "}"))
    return out
  }

  private static let base64Alphabet: [UInt8] = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// `bytes` in base64 (RFC 4648, padded), appended to `out`.
  static func appendBase64(_ bytes: [UInt8], to out: inout [UInt8]) {
    let alphabet = base64Alphabet
    let start = out.count
    // Grown once, then written in place (no capacity check per byte).
    out.append(contentsOf: repeatElement(0, count: (bytes.count + 2) / 3 * 4))
    bytes.withUnsafeBufferPointer { input in
      alphabet.withUnsafeBufferPointer { table in
        out.withUnsafeMutableBufferPointer { output in
          var index = 0
          var at = start
          while index + 3 <= input.count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output[at] = table[Int(group >> 18 & 0x3F)]
            output[at + 1] = table[Int(group >> 12 & 0x3F)]
            output[at + 2] = table[Int(group >> 6 & 0x3F)]
            output[at + 3] = table[Int(group & 0x3F)]
            index += 3
            at += 4
          }
          let left = input.count - index
          guard left > 0 else { return }
          let group = UInt32(input[index]) << 16 | (left == 2 ? UInt32(input[index + 1]) << 8 : 0)
          output[at] = table[Int(group >> 18 & 0x3F)]
          output[at + 1] = table[Int(group >> 12 & 0x3F)]
          output[at + 2] = left == 2 ? table[Int(group >> 6 & 0x3F)] : UInt8(ascii: "=")
          output[at + 3] = UInt8(ascii: "=")
        }
      }
    }
  }

  private func message(_ payload: [UInt8], to topic: String, retained: Bool = true) -> MQTTMessage {
    MQTTMessage(topic: topic, payload: payload, quality: .atLeastOnce, isRetained: retained)
  }

  private func send(_ batch: [MQTTMessage], in state: State) {
    guard !batch.isEmpty, state.isConnected, let client = state.client else { return }
    do throws(MQTTError) {
      try client.publish(batch)
    } catch {
      // Not connected: the next connection publishes the whole state again.
      diagnose("bridge: \(error.description)")
    }
  }
}
