import Dispatch
import FleetModel
import FleetProtocol
import KeyedArchive
import MQTTClient
import MailboxModel
import MailboxWatcher
import PropertyList
import Synchronization
import Wormhole
import WormholeVocabulary

/// The remote pass, clear and replay requests of one bridge: with `--allow-remote-writes` it
/// subscribes to its machine's `requests` topic and applies each request with the Wormhole
/// library (journaled on this machine like any pass or clear), answering on the request's
/// `reply_to`; without it, it subscribes to nothing and answers any request that reaches it
/// anyway with the reason. Its ``BridgeInfo`` says which, retained, at each connection.
///
/// Everything from the broker is hostile: a request is decoded with ``RemoteRequest``'s checks,
/// may name only a directory this bridge publishes (one of its model's), an identifier valid as a
/// local one, and an archive the inspector reads; every refusal is a reply with the reason and a
/// line on standard error. Requests are applied one at a time, in arrival order, on a queue of
/// their own (a lock held by another writer delays the next request, never the publisher).
final class BridgeRequests: Sendable {
  /// What a read-only bridge says about remote writes.
  static let readOnlyReason = "bridge started without --allow-remote-writes"

  let machine: String
  let allowsWrites: Bool
  private let queue = DispatchQueue(label: "wormhole.bridge.requests")
  private let model = Mutex<LiveModel?>(nil)
  private let client = Mutex<MQTTClient?>(nil)
  /// One wormhole per directory and type, its journal kept open; never creating a directory.
  private let wormholes = WormholeCache()
  /// The replies to the latest requests, by reply topic and id: QoS 1 may deliver a request
  /// twice, and a request seen again is answered again, not applied again. Touched on `queue`.
  private let answered = Mutex(AnsweredRequests())

  /// The last ``capacity`` replies, oldest first out.
  struct AnsweredRequests {
    static let capacity = 1024
    var replies: [String: RemoteReply] = [:]
    var order: [String] = []

    mutating func insert(_ reply: RemoteReply, for key: String) {
      if replies.updateValue(reply, forKey: key) == nil { order.append(key) }
      if order.count > Self.capacity { replies[order.removeFirst()] = nil }
    }
  }

  /// Publishes the bridge info after the requests' subscription (the publisher's, with its
  /// mailbox count); `nil`: this object publishes ``info`` itself.
  let announceInfo: (@Sendable () -> Void)?

  init(machine: String, allowsWrites: Bool, announceInfo: (@Sendable () -> Void)? = nil) {
    self.machine = machine
    self.allowsWrites = allowsWrites
    self.announceInfo = announceInfo
  }

  /// What the bridge publishes on ``BridgeTopics/bridge(machine:)`` (without its mailbox count).
  var info: BridgeInfo { Self.info(allowsWrites: allowsWrites) }

  /// The bridge info of a bridge that does or does not apply remote writes.
  static func info(allowsWrites: Bool) -> BridgeInfo {
    allowsWrites
      ? BridgeInfo(allowsRemoteWrites: true)
      : BridgeInfo(allowsRemoteWrites: false, reason: Self.readOnlyReason)
  }

  /// The journal's sender label for what remote requests write.
  var sender: String { "bridge \(machine) (remote)" }

  func attach(model: LiveModel, client: MQTTClient) {
    self.model.withLock { $0 = model }
    self.client.withLock { $0 = client }
  }

  /// The broker accepted the connection: the subscription to the requests, when writes are
  /// allowed, then the bridge info (retained).
  func connected() {
    queue.async {
      guard let client = self.client.withLock({ $0 }) else { return }
      do throws(MQTTError) {
        // Subscribed first: the broker takes a connection's packets in order, so whoever sees
        // this connection's bridge info can publish a request that reaches the bridge.
        if self.allowsWrites {
          try client.subscribe(BridgeTopics.requests(machine: self.machine), quality: .atLeastOnce)
        }
        if let announceInfo = self.announceInfo {
          announceInfo()
        } else {
          try client.publish(
            self.info.payload, to: BridgeTopics.bridge(machine: self.machine), quality: .atLeastOnce,
            retained: true)
        }
      } catch {
        diagnose("bridge: \(error.description)")
      }
    }
  }

  /// Empties the retained bridge info, waiting (up to two seconds) until the broker has it: a
  /// bridge that exits cleanly leaves no stale info.
  func goOffline() {
    queue.sync {
      guard let client = client.withLock({ $0 }) else { return }
      _ = try? client.publish(
        [], to: BridgeTopics.bridge(machine: machine), quality: .atLeastOnce, retained: true, timeout: 2)
    }
  }

  /// A message from the broker: a request on this machine's `requests` topic is answered; any
  /// other is not this object's.
  ///
  /// At most ``backlogLimit`` requests (or ``backlogBytesLimit`` bytes of them) wait to be
  /// applied: the broker hands a message over once its client has it, so without a bound a flood
  /// of requests would grow the bridge's memory without limit. One beyond is refused at once,
  /// with the reason, and said on standard error.
  func received(_ message: MQTTMessage) {
    guard case .requests(let owner)? = BridgeTopics.kind(of: message.topic), owner == machine else { return }
    let size = message.payload.count
    let taken = backlog.withLock { backlog -> (requests: Int, bytes: Int)? in
      guard backlog.requests < Self.backlogLimit, backlog.bytes + size <= Self.backlogBytesLimit else {
        return nil
      }
      backlog.requests += 1
      backlog.bytes += size
      return backlog
    }
    guard taken != nil else {
      let waiting = backlog.withLock { $0 }
      let reason =
        "the bridge is busy: \(waiting.requests) requests (\(waiting.bytes) bytes) wait to be applied "
        + "(at most \(Self.backlogLimit), \(Self.backlogBytesLimit) bytes); send it again later"
      if let route = RemoteRequest.replyRoute(of: message.payload) {
        refuse(id: route.id, replyTo: route.replyTo, operation: nil, reason: reason)
      } else {
        diagnose("bridge: dropped a request (\(size) bytes): \(reason)")
      }
      return
    }
    queue.async {
      defer {
        self.backlog.withLock {
          $0.requests -= 1
          $0.bytes -= size
        }
      }
      self.answer(message.payload)
    }
  }

  /// The most requests that wait to be applied; one beyond is refused.
  static let backlogLimit = 256
  /// The most bytes of requests that wait to be applied (a request is at most about 1.4 MiB).
  static let backlogBytesLimit = 64 << 20
  /// The requests waiting on `queue`, and their bytes.
  private let backlog = Mutex((requests: 0, bytes: 0))

  private func answer(_ payload: [UInt8]) {
    let request: RemoteRequest
    do throws(FleetProtocolError) {
      request = try RemoteRequest(payload: payload)
    } catch {
      guard let route = RemoteRequest.replyRoute(of: payload) else {
        diagnose(
          "bridge: dropped a request with nowhere to answer (\(payload.count) bytes): \(error.description)")
        return
      }
      refuse(id: route.id, replyTo: route.replyTo, operation: nil, reason: error.description)
      return
    }
    let key = "\(request.replyTo) \(request.id)"
    if let earlier = answered.withLock({ $0.replies[key] }) {
      diagnose("bridge: request \(request.id) seen again: answered again, not applied again")
      publish(earlier, to: request.replyTo)
      return
    }
    let reply: RemoteReply
    switch apply(request) {
    case .success(let applied):
      diagnose(
        "bridge: applied request \(request.id): \(request.operation.rawValue) \(request.identifier?.displayField ?? "of every mailbox") in \(request.directory.displayField)"
          + (applied.sequence.map { " (journal seq \($0))" } ?? ""))
      reply = .applied(id: request.id, sequence: applied.sequence, replayed: applied.replayed)
    case .failure(let refusal):
      reply = refuse(
        id: request.id, replyTo: request.replyTo, operation: request.operation, reason: refusal.reason)
    }
    answered.withLock { $0.insert(reply, for: key) }
    if reply.isOK { publish(reply, to: request.replyTo) }
  }

  @discardableResult
  private func refuse(id: String?, replyTo: String, operation: RemoteRequest.Operation?, reason: String)
    -> RemoteReply
  {
    diagnose(
      "bridge: refused request \(id ?? "(no id)")\(operation.map { " (\($0.rawValue))" } ?? ""): \(reason)")
    let reply = RemoteReply.refused(id: id, reason: reason)
    publish(reply, to: replyTo)
    return reply
  }

  private func publish(_ reply: RemoteReply, to topic: String) {
    guard let client = client.withLock({ $0 }) else { return }
    do throws(MQTTError) {
      try client.publish(reply.payload, to: topic, quality: .atLeastOnce, retained: false)
    } catch {
      diagnose("bridge: cannot answer on \(DisplayText.field(topic)): \(error.description)")
    }
  }

  /// Why a request was not applied.
  struct Refusal: Error {
    var reason: String
  }

  /// What an applied request wrote: its journal record's sequence number (`nil` when the
  /// transiting type journals nothing), and the version a record replay wrote again.
  struct Applied {
    var sequence: UInt64?
    var replayed: RemoteReply.ReplayedVersion?

    init(_ record: TrafficRecord, replayed: RemoteReply.ReplayedVersion? = nil) {
      // A transiting type that journals its own traffic makes no record here (sequence 0).
      sequence = record.sequence == 0 ? nil : record.sequence
      self.replayed = replayed
    }
  }

  /// Applies `request` (already decoded and validated): its journal record's sequence number, or
  /// the reason it was refused or failed. Nothing is written unless every check passed. A record
  /// replay takes its archive from the model's history (``KeptRecordVersion``).
  private func apply(_ request: RemoteRequest) -> Result<Applied, Refusal> {
    guard allowsWrites else { return .failure(Refusal(reason: Self.readOnlyReason)) }
    guard let state = model.withLock({ $0?.snapshot }) else {
      return .failure(Refusal(reason: "the bridge is starting; try again"))
    }
    guard state.directories[request.directory] != nil else {
      return .failure(
        Refusal(
          reason:
            "the directory \(request.directory.displayField) is not one this bridge publishes (its directories are those of its mailbox topics)"
        ))
    }
    guard let directory = request.directory.string else {
      return .failure(Refusal(reason: "the directory \(request.directory.displayField) is not UTF-8"))
    }
    if let archive = request.archive {
      let inspection: Inspection
      do throws(PropertyListError) {
        inspection = try KeyedArchiveInspector().inspect(archive)
      } catch {
        return .failure(Refusal(reason: "the archive is refused by the inspector: \(error.description)"))
      }
      if let reason = inspection.notArchiveReason, !inspection.isPlainPropertyList {
        return .failure(Refusal(reason: "the archive is refused by the inspector: \(reason.description)"))
      }
    }
    // A replay names a record this machine's journal has written (it may have been rotated
    // away since): a number beyond its last is no record, and would be journaled as a claim.
    if request.operation == .replay || request.operation == .replayRecord, let replayOf = request.replayOf {
      let last = TrafficJournalReader(directory: directory, startingAtEnd: true).lastSequence ?? 0
      guard replayOf >= 1, replayOf <= last else {
        return .failure(
          Refusal(
            reason: "record \(replayOf) is not in this directory's journal (its last record is \(last))"))
      }
    }
    let type = request.transiting ?? .file
    let wormhole: Wormhole
    do throws(WormholeError) {
      wormhole = try wormholes.wormhole(directory: directory, transitingType: type, sender: sender)
    } catch {
      return .failure(Refusal(reason: error.description))
    }
    do throws(WormholeError) {
      if request.operation == .clearAll {
        return .success(Applied(try wormhole.clearAllMessageContents()))
      }
      guard let named = request.identifier else {
        return .failure(Refusal(reason: "the request names no identifier"))
      }
      switch request.operation {
      case .clear, .clearAll:  // a clear-all was applied above
        return .success(
          Applied(try wormhole.clearMessageContents(forFileName: MessageIdentifier.fileName(for: named))))
      case .replayRecord:
        guard let identifier = named.string, let record = request.replayOf else {
          return .failure(
            Refusal(reason: "the identifier \(named.displayField) is not UTF-8; only clear takes one"))
        }
        let version: MailboxVersion
        switch KeptRecordVersion.resolve(
          record: record, identifier: named, mailbox: state.mailbox(named, in: request.directory),
          traffic: state.traffic.lazy.filter { $0.directory == request.directory },
          historyDepth: state.configuration.historyDepth)
        {
        case .success(let kept): version = kept
        case .failure(let refusal): return .failure(Refusal(reason: refusal.reason))
        }
        guard let bytes = version.bytes else {
          return .failure(Refusal(reason: "the bridge keeps no bytes of the version record \(record) wrote"))
        }
        let written = try wormhole.passArchive(bytes, identifier: identifier, replayOf: record)
        return .success(
          Applied(
            written,
            replayed: RemoteReply.ReplayedVersion(
              record: record, byteCount: bytes.count,
              modifiedMilliseconds: version.modifiedNanoseconds / 1_000_000)))
      case .pass, .replay:
        guard let identifier = named.string else {
          return .failure(
            Refusal(
              reason: "the identifier \(named.displayField) is not UTF-8; only clear takes one"))
        }
        let record: TrafficRecord
        if let archive = request.archive {
          // A replay names the record it repeats when it knows it; one that does not (the
          // dashboard's of a remote version) is a pass of that archive, not a replay of record 0.
          let replayOf = request.operation == .replay ? request.replayOf : nil
          record = try wormhole.passArchive(archive, identifier: identifier, replayOf: replayOf)
        } else {
          record = try wormhole.passMessage(nil, identifier: identifier)
        }
        return .success(Applied(record))
      }
    } catch {
      return .failure(Refusal(reason: error.description))
    }
  }
}
