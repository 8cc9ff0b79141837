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
/// Publishing runs on one serial queue, so entries leave in the order the model recognized them;
/// on every (re)connection the whole state is published again, so the broker ends equal to the
/// disks after a broker restart too.
final class BridgePublisher: Sendable {
  /// The largest archive copied, base64, into a mailbox's payload; above it the payload says so.
  static let archiveByteLimit = 256 << 10

  let machine: String
  private let queue = DispatchQueue(label: "wormhole.bridge.publish")
  private let model = Mutex<LiveModel?>(nil)
  private let client = Mutex<MQTTClient?>(nil)
  /// The retained mailbox topics published with content, so that vanished ones are emptied.
  /// Touched only on `queue`.
  private let published = Mutex<Set<String>>([])

  /// Whether the broker accepted the connection and it has not dropped since: nothing is
  /// published otherwise (libmosquitto must not be published to while `connect` runs on another
  /// thread), and each connection publishes the whole state anyway.
  private let isConnected = Mutex(false)

  init(machine: String) { self.machine = machine }

  /// The connection dropped: publishing waits for the next ``connected()``.
  func disconnected() { isConnected.withLock { $0 = false } }

  /// Starts publishing `model` through `client` (both made by the caller, the client not yet
  /// connected: its `.connected` events should reach ``connected()``).
  func attach(model: LiveModel, client: MQTTClient) {
    self.model.withLock { $0 = model }
    self.client.withLock { $0 = client }
  }

  /// The broker accepted the connection: presence, then everything.
  func connected() {
    queue.async {
      self.isConnected.withLock { $0 = true }
      self.publish(Array("online".utf8), to: BridgeTopics.presence(machine: self.machine))
      self.published.withLock { $0 = [] }
      self.publishAllMailboxes()
      // After the whole state: what the broker still holds from an earlier run arrives next.
      guard let client = self.client.withLock({ $0 }) else { return }
      do throws(MQTTError) {
        try client.subscribe(BridgeTopics.mailboxes(machine: self.machine), quality: .atLeastOnce)
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
      guard let state = self.model.withLock({ $0?.snapshot }) else { return }
      if state.mailbox(identifier, in: directory)?.isOnDisk != true { self.publish([], to: message.topic) }
    }
  }

  /// What the model's `onUpdate` hands over (on the model's queue).
  func modelUpdated(_ update: ModelUpdate) {
    queue.async {
      guard let state = self.model.withLock({ $0?.snapshot }) else { return }
      if update.directoriesChanged {
        self.publishAllMailboxes()
      } else {
        for (directory, identifier) in update.changedMailboxes {
          self.publishMailbox(directory: directory, identifier: identifier, in: state)
        }
      }
      for entry in update.newTraffic {
        self.publish(
          Array(entry.jsonLine.utf8), to: BridgeTopics.traffic(machine: self.machine), retained: false)
      }
    }
  }

  /// Publishes "offline" and waits (up to two seconds) until the broker has it: a bridge that
  /// stops cleanly sends no Last Will.
  func goOffline() {
    queue.sync {
      guard let client = client.withLock({ $0 }) else { return }
      _ = try? client.publish(
        Array("offline".utf8), to: BridgeTopics.presence(machine: machine), quality: .atLeastOnce,
        retained: true,
        timeout: 2)
    }
  }

  private func publishAllMailboxes() {
    guard let state = model.withLock({ $0?.snapshot }) else { return }
    var seen: Set<String> = []
    for directory in state.sortedDirectories {
      for mailbox in directory.sortedMailboxes {
        let topic = publishMailbox(directory: directory.path, identifier: mailbox.identifier, in: state)
        if let topic { seen.insert(topic) }
      }
    }
    for topic in published.withLock({ $0.subtracting(seen) }) { publish([], to: topic) }
    published.withLock { $0 = seen }
  }

  /// Publishes one mailbox's payload, or an empty retained message when it is cleared or gone;
  /// returns the topic when it was published with content.
  @discardableResult
  private func publishMailbox(directory: FileName, identifier: FileName, in state: ModelState) -> String? {
    let topic = BridgeTopics.mailbox(machine: machine, directory: directory, identifier: identifier)
    guard let mailbox = state.mailbox(identifier, in: directory), mailbox.isOnDisk else {
      publish([], to: topic)
      published.withLock { _ = $0.remove(topic) }
      return nil
    }
    publish(Array(Self.payload(mailbox, directory: directory, in: state).utf8), to: topic)
    published.withLock { _ = $0.insert(topic) }
    return topic
  }

  /// A mailbox's payload: `{"directory","directory_bytes","mailbox","archive_base64","archive_note"}`,
  /// `mailbox` as `dump --json` writes it; `archive_base64` the current archive's bytes, or
  /// `null` with the reason in `archive_note`.
  static func payload(_ mailbox: Mailbox, directory: FileName, in state: ModelState) -> String {
    var out =
      "{\"directory\":\(JSONText.name(directory)),\"directory_bytes\":\(JSONText.nameBytes(directory))"
    out += ",\"mailbox\":\(state.mailboxJSON(mailbox, width: 200))"
    var archive: String?
    var note: String?
    if let current = mailbox.current {
      if current.size > archiveByteLimit {
        note = "the archive is \(current.size) bytes, above the bridge's limit of \(archiveByteLimit)"
      } else if let bytes = current.bytes {
        archive = JSONText.string(Base64.encoded(bytes))
      } else {
        note = "the model did not keep the archive's bytes"
      }
    } else {
      note = "the mailbox is unreadable"
    }
    out += ",\"archive_base64\":\(archive ?? "null"),\"archive_note\":\(JSONText.string(orNull: note))}"
    return out
  }

  private func publish(_ payload: [UInt8], to topic: String, retained: Bool = true) {
    guard isConnected.withLock({ $0 }), let client = client.withLock({ $0 }) else { return }
    do throws(MQTTError) {
      try client.publish(payload, to: topic, quality: .atLeastOnce, retained: retained)
    } catch {
      // Not connected: the next connection publishes the whole state again.
      diagnose("bridge: \(error.description)")
    }
  }
}
