import Dispatch
import Foundation
import Glibc
import Synchronization
import WormholeVocabulary

/// The listeners of one ``Wormhole``, and the journal follower that wakes them, started with the
/// first listener and stopped with the last. For a transiting that delivers incoming messages
/// itself (a session type) no follower runs: ``deliver(_:)`` hands each one to the listeners.
final class ListenerRegistry: Sendable {
  private struct Entry {
    let id: UInt64
    let listener: @Sendable (ReceivedMessage) -> Void
  }

  private struct State {
    /// Keyed by the identifier's exact bytes: `é` (U+00E9) and `e` + U+0301 are two mailboxes.
    var entries: [FileName: [Entry]] = [:]
    var nextID: UInt64 = 0
    var follower: TrafficJournalFollower?
    /// The listeners still catching up (``add(identifier:reader:catchingUp:listener:)``), by id, with
    /// what the follower delivered for them meanwhile, in order: handed over when the catch-up ends.
    var catchingUp: [UInt64: [ReceivedMessage]] = [:]
  }

  /// Runs once, between starting a follower and registering a listener: lets a test remove the
  /// last other listener exactly there.
  let hookBeforeRegistering = Mutex<(@Sendable () -> Void)?>(nil)
  /// Runs once, after a listener that catches up is registered and before the journal is read
  /// for its catch-up: lets a test append a record that both the catch-up and the follower see.
  let hookBeforeCatchUp = Mutex<(@Sendable () -> Void)?>(nil)
  private let directory: String
  /// Where listeners run; `nil` runs them on the follower's thread, in order, with no hop.
  private let queue: DispatchQueue?
  private let state = Mutex(State())
  /// Whether listeners are woken by the directory's journal (the file types) rather than by
  /// ``deliver(_:)``.
  let followsJournal: Bool
  /// Told what the journal follower notices (an unreadable journal, the directory removed...).
  /// (In a struct: a `Mutex` of the function type itself re-wraps the closure in two more
  /// reabstraction thunks at every `withLock`, so each notice would run a longer chain.)
  let noticeHandler = Mutex(NoticeHandler())

  struct NoticeHandler { var handle: (@Sendable (TrafficJournalNotice) -> Void)? }

  init(directory: String, options: Wormhole.Options, followsJournal: Bool = true) {
    self.directory = directory
    self.queue = options.listenerQueue
    self.followsJournal = followsJournal
  }

  /// Registers `listener` for `identifier`. With `catchingUp`, the journal's records for which it
  /// holds (those written from a moment on) that came before the registration are delivered
  /// first (coalesced as a batch is), on the calling thread when there is no listener queue,
  /// before this returns; what the follower delivers meanwhile waits, and a record both see is
  /// delivered once. A session type's registry (no journal) has nothing to catch up.
  func add(
    identifier: String, reader: Wormhole, catchingUp: (@Sendable (TrafficRecord) -> Bool)? = nil,
    listener: @escaping @Sendable (ReceivedMessage) -> Void
  ) throws(WormholeError) -> ListenerToken {
    // A follower is started outside the lock (it touches the file system). Registration then
    // needs one to exist: if the last listener was removed meanwhile (stopping the follower),
    // start another and try again; if another thread started one first, ours is cancelled.
    guard followsJournal else { return register(identifier: identifier, listener: listener) }
    var started: TrafficJournalFollower?
    while true {
      if started == nil && state.withLock({ $0.follower == nil }) {
        // Weak references: listening must not keep the wormhole alive.
        started = try TrafficJournalFollower(
          directory: directory,
          notices: { [weak self] notice in
            guard let handler = self?.noticeHandler.withLock({ $0.handle }) else { return }
            handler(notice)
          }
        ) { [weak self, weak reader] records in
          guard let self, let reader else { return }
          self.dispatch(records, reader: reader)
        }
      }
      let hook = hookBeforeRegistering.withLock { hook in
        defer { hook = nil }
        return hook
      }
      hook?()
      let candidate = started
      let (id, unused) = state.withLock { state -> (UInt64?, TrafficJournalFollower?) in
        var unused = candidate
        if state.follower == nil {
          guard let candidate else { return (nil, nil) }
          state.follower = candidate
          unused = nil
        }
        state.nextID += 1
        state.entries[FileName(identifier), default: []].append(Entry(id: state.nextID, listener: listener))
        if catchingUp != nil { state.catchingUp[state.nextID] = [] }
        return (state.nextID, unused)
      }
      unused?.cancel()
      guard let id else { continue }
      if let catchingUp {
        catchUp(
          Entry(id: id, listener: listener), identifier: identifier, hearing: catchingUp, reader: reader)
      }
      return ListenerToken(identifier: identifier) { [weak self] in
        self?.remove(id: id, identifier: identifier)
      }
    }
  }

  /// Registers a listener that ``deliver(_:)`` calls (no journal follower).
  private func register(identifier: String, listener: @escaping @Sendable (ReceivedMessage) -> Void)
    -> ListenerToken
  {
    let id = state.withLock { state -> UInt64 in
      state.nextID += 1
      state.entries[FileName(identifier), default: []].append(Entry(id: state.nextID, listener: listener))
      return state.nextID
    }
    return ListenerToken(identifier: identifier) { [weak self] in
      self?.remove(id: id, identifier: identifier)
    }
  }

  /// Hands a message that arrived by other means than the journal (a session's) to the listeners
  /// of its identifier, on the listener queue when there is one.
  func deliver(_ message: ReceivedMessage) {
    let key = FileName(message.identifier)
    let targets = state.withLock { $0.entries[key] } ?? []
    call(targets, with: message, key: key)
  }

  private func call(_ targets: [Entry], with delivery: ReceivedMessage, key: FileName) {
    for entry in targets {
      let listener = entry.listener
      if let queue {
        // Still registered when it runs? A token cancelled meanwhile hears nothing more.
        let id = entry.id
        queue.async { [weak self] in
          guard let self, self.isRegistered(id: id, key: key) else { return }
          listener(delivery)
        }
      } else {
        listener(delivery)
      }
    }
  }

  /// Delivers to `entry` what the journal holds for `identifier` that `hears` takes, then what the
  /// follower kept for it meanwhile (less what the catch-up already covered), until nothing is
  /// kept: from then on the follower delivers to it directly.
  private func catchUp(
    _ entry: Entry, identifier: String, hearing hears: (TrafficRecord) -> Bool, reader: Wormhole
  ) {
    let key = FileName(identifier)
    let hook = hookBeforeCatchUp.withLock { hook in
      defer { hook = nil }
      return hook
    }
    hook?()
    // Every retained record (the rotated generation's, then the current file's): those `hears`
    // does not take are never delivered.
    let records = TrafficJournalReader(directory: directory, startingAtEnd: false).readAvailable()
      .filter { FileName($0.identifier) == key && hears($0) }
    let covered = Set(records.map(RecordKey.init))
    var pending = deliveries(records, listening: [key], reader: reader).flatMap(\.deliveries)
    while true {
      for delivery in pending {
        guard isRegistered(id: entry.id, key: key) else { return }
        call([entry], with: delivery, key: key)
      }
      let kept = state.withLock { state -> [ReceivedMessage]? in
        guard let kept = state.catchingUp[entry.id] else { return nil }
        state.catchingUp[entry.id] = kept.isEmpty ? nil : []
        return kept
      }
      guard let kept, !kept.isEmpty else { return }
      pending = kept.filter { !covered.contains(RecordKey($0.record)) }
    }
  }

  /// What tells one record from another within a journal: its number, time and writer.
  private struct RecordKey: Hashable {
    let sequence: UInt64
    let milliseconds: Int64
    let processIdentifier: Int32
    init(_ record: TrafficRecord) {
      sequence = record.sequence
      milliseconds = record.milliseconds
      processIdentifier = record.processIdentifier
    }
  }

  private func remove(id: UInt64, identifier: String) {
    let stopped = state.withLock { state -> TrafficJournalFollower? in
      state.catchingUp[id] = nil
      let key = FileName(identifier)
      state.entries[key]?.removeAll { $0.id == id }
      if state.entries[key]?.isEmpty == true { state.entries[key] = nil }
      return stopIfIdle(&state)
    }
    stopped?.cancel()
  }

  private func isRegistered(id: UInt64, key: FileName) -> Bool {
    state.withLock { $0.entries[key]?.contains { $0.id == id } ?? false }
  }

  func removeAll(identifier: String) {
    let stopped = state.withLock { state -> TrafficJournalFollower? in
      for entry in state.entries[FileName(identifier)] ?? [] { state.catchingUp[entry.id] = nil }
      state.entries[FileName(identifier)] = nil
      return stopIfIdle(&state)
    }
    stopped?.cancel()
  }

  /// The running follower, if any (for tests).
  var currentFollower: TrafficJournalFollower? { state.withLock { $0.follower } }

  private func stopIfIdle(_ state: inout State) -> TrafficJournalFollower? {
    guard state.entries.isEmpty, let follower = state.follower else { return nil }
    state.follower = nil
    return follower
  }

  /// Coalesces a batch per identifier: the last pass is delivered with the mailbox as it is now,
  /// and notifications after it are delivered once, without a message.
  private func dispatch(_ records: [TrafficRecord], reader: Wormhole) {
    let listening = state.withLock { Set($0.entries.keys) }
    guard !listening.isEmpty else { return }
    for (key, deliveries) in deliveries(records, listening: listening, reader: reader) {
      // A listener still catching up keeps what arrives until its catch-up hands it over.
      let targets = state.withLock { state -> [Entry] in
        var targets: [Entry] = []
        for entry in state.entries[key] ?? [] {
          if state.catchingUp[entry.id] != nil {
            state.catchingUp[entry.id]?.append(contentsOf: deliveries)
          } else {
            targets.append(entry)
          }
        }
        return targets
      }
      for delivery in deliveries { call(targets, with: delivery, key: key) }
    }
  }

  /// What `records` deliver to the listeners of the identifiers in `listening`, per identifier
  /// in the order first heard.
  private func deliveries(_ records: [TrafficRecord], listening: Set<FileName>, reader: Wormhole)
    -> [(key: FileName, deliveries: [ReceivedMessage])]
  {
    var result: [(key: FileName, deliveries: [ReceivedMessage])] = []
    var order: [FileName] = []
    var lastPass: [FileName: TrafficRecord] = [:]
    var lastNotify: [FileName: TrafficRecord] = [:]
    // The last passes that stored nothing here (a session message or context received).
    var unstored = Set<FileName>()
    for record in records where record.outcome == .ok {
      let key = FileName(record.identifier)
      guard listening.contains(key) else { continue }
      // A session's traffic record (it has a delivery) rings when it wrote the mailbox (a
      // stored transfer), or when this device received it without storing it in a mailbox (a
      // message, a context): what the device hears. Its own sends stay silent.
      var isStored = true
      if record.delivery != nil {
        guard record.kind == .pass else { continue }
        if !mailboxHolds(record, reader: reader) {
          // A transfer rings only with the mailbox it wrote (not yet, or overwritten since).
          guard record.delivery == .delivered, record.transitingType != .sessionFile, Self.isIncoming(record)
          else { continue }
          isStored = false
        }
      }
      if lastPass[key] == nil && lastNotify[key] == nil { order.append(key) }
      if record.kind == .pass {
        lastPass[key] = record
        if isStored { unstored.remove(key) } else { unstored.insert(key) }
        lastNotify[key] = nil
      } else if record.kind == .notify {
        lastNotify[key] = record
      }
    }
    for key in order {
      var deliveries: [ReceivedMessage] = []
      if let record = lastPass[key] {
        deliveries.append(
          unstored.contains(key)
            ? ReceivedMessage(identifier: record.identifier, message: nil, archive: nil, record: record)
            : read(record.identifier, record: record, reader: reader))
      }
      if let record = lastNotify[key] {
        deliveries.append(
          ReceivedMessage(identifier: record.identifier, message: nil, archive: nil, record: record))
      }
      result.append((key, deliveries))
    }
    return result
  }

  /// Whether a simulated device's record is of something its peer sent: a session transfer
  /// identifier names its sender before `#` (`<pair>/<role>#…`), and the record's device is not
  /// that sender.
  static func isIncoming(_ record: TrafficRecord) -> Bool {
    guard let device = record.device, let transfer = record.transfer, let mark = transfer.firstIndex(of: "#")
    else { return false }
    return transfer[..<mark] != device
  }

  /// Whether the mailbox of the record's identifier carries the record's transfer identifier (the
  /// record wrote it). A file system without user extended attributes never does.
  private func mailboxHolds(_ record: TrafficRecord, reader: Wormhole) -> Bool {
    guard let transfer = record.transfer,
      let path = try? reader.mailboxPath(forIdentifier: record.identifier)
    else { return false }
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return false }
    defer { _ = close(descriptor) }
    return FileSystem.transferIdentifier(descriptor) == transfer
  }

  private func read(_ identifier: String, record: TrafficRecord, reader: Wormhole) -> ReceivedMessage {
    var received = ReceivedMessage(identifier: identifier, message: nil, archive: nil, record: record)
    do {
      guard let bytes = try reader.archiveBytes(withIdentifier: identifier) else { return received }
      received.archive = Data(bytes)
      received.message = try MessageCoding.decode(
        bytes, path: try reader.mailboxPath(forIdentifier: identifier))
    } catch {
      received.failure = error
    }
    return received
  }
}
