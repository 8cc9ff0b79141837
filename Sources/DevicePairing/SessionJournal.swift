import DeviceSession
import Synchronization
import Wormhole
import WormholeVocabulary

/// Journals a simulated device's session: every ``SessionEvent`` of its engine becomes a traffic
/// record in the journal of the device's application-group directory (the one its
/// ``MailboxDelivery`` writes to), with the device, its peer, the delivery state and a transfer
/// identifier shared by every record of one send, on both devices:
///
/// | send | transfer identifier |
/// |---|---|
/// | a message | `<pair>/<sender role>#message-<time>-<sequence>` (`time`: the frame's, ns since 1970) |
/// | a message that failed before it had a sequence | `<pair>/<sender role>#message-<time>` |
/// | a context | `<pair>/<sender role>#context-<version>` |
/// | a transfer | `<pair>/<sender role>#<id>` |
///
/// So the part before `#` is always the sending device, and a record whose `device` is not that
/// part was made by the receiver. Records are written on a serial queue of their own, off the
/// session's threads, in the order the engine made the events: events are gathered for
/// ``gatheringMilliseconds`` and written together, so that a burst of messages costs one wake-up
/// of that queue, not one per record. ``flush()`` writes what waits and returns when it is written.
public final class SessionJournal: Sendable {
  /// The device whose session is journaled, `<pair>/<role>`.
  public let device: String
  /// Its counterpart, `<pair>/<role>`.
  public let peer: String
  private let mailboxes: MailboxDelivery
  private let pending = Mutex(Pending())
  /// Events observed and not yet written, each with when it was observed: the time its records
  /// carry.
  private let waiting = JournalGathering<SessionEvent>(
    label: "device-session-journal", milliseconds: SessionJournal.gatheringMilliseconds)
  /// The records the events being written made (only the queue touches it; a `Mutex` for
  /// `Sendable`): written in one go at the end of each batch.
  private let batch = Mutex<[Wormhole.JournalEntry]>([])

  /// How long events are gathered before they are written.
  public static let gatheringMilliseconds = 2

  /// What earlier events said that later ones need: a delivered context's identifier, a
  /// delivered transfer's identifier and size.
  private struct Pending {
    var contexts: [UInt64: [(identifier: String, bytes: Int, kind: TrafficKind)]] = [:]
    var transfers: [UInt64: FileTransferSummary] = [:]
  }

  /// A journal for the device at `address`, writing to `mailboxes`' directory; `outstanding`
  /// are the transfers already queued (from earlier runs), so that their delivery names them.
  public init(address: DeviceAddress, mailboxes: MailboxDelivery, outstanding: [FileTransfer] = []) {
    device = Self.name(address)
    peer = Self.name(address.counterpart)
    self.mailboxes = mailboxes
    pending.withLock { pending in
      for transfer in outstanding { pending.transfers[transfer.id] = FileTransferSummary(transfer) }
    }
  }

  /// Journals the cancel of `transfer`, queued by the device at `address` and cancelled on its
  /// disk while it does not run (`transfers cancel ID`): the record its running session makes
  /// for a cancel (`delivery: cancelled`, the transfer's shared identifier), in the journal of
  /// `mailboxes`' directory, written before this returns.
  public static func journalCancel(
    of transfer: FileTransfer, by address: DeviceAddress, in mailboxes: MailboxDelivery
  ) {
    let journal = SessionJournal(address: address, mailboxes: mailboxes)
    journal.observe(.transferCancelled(FileTransferSummary(transfer)))
    journal.flush()
  }

  /// `<pair>/<role>`.
  public static func name(_ address: DeviceAddress) -> String {
    address.pair.text + "/" + address.role.rawValue
  }

  /// The transfer identifier of transfer `id` sent by `sender` (see the table above).
  public static func transferIdentifier(sender: String, transfer id: UInt64) -> String { sender + "#\(id)" }

  /// Takes one event (on any thread); it is written on the journal's queue, with the others
  /// observed within ``gatheringMilliseconds``.
  /// Its records carry the time it was observed, not the time they are written.
  public func observe(_ event: SessionEvent) {
    waiting.add([event]) { self.writeWaiting($0) }
  }

  /// Writes every event observed so far, and returns when they are written.
  public func flush() {
    waiting.flush(writeWaiting)
  }

  /// On the queue: writes the events gathered, in order.
  private func writeWaiting(_ events: [JournalGathering<SessionEvent>.Stamped]) {
    for (event, milliseconds) in events {
      let start = batch.withLock { $0.count }
      write(event)
      batch.withLock { batch in
        for index in start..<batch.count { batch[index].milliseconds = milliseconds }
      }
    }
    // What the events made goes to the journal in one write.
    let entries = batch.withLock { batch -> [Wormhole.JournalEntry] in
      defer { batch = [] }
      return batch
    }
    mailboxes.record(contentsOf: entries)
  }

  private func write(_ event: SessionEvent) {
    switch event {
    case .messageSent(let identifier, let sequence, let time, let bytes, _):
      record(
        identifier, bytes: bytes, .sessionMessage, .delivered,
        transfer: "\(device)#message-\(time)-\(sequence)")
    case .messageFailed(let identifier, let sequence, let time, let bytes, let error):
      let transfer = sequence.map { "\(device)#message-\(time)-\($0)" } ?? "\(device)#message-\(time)"
      record(identifier, bytes: bytes, .sessionMessage, .failed, transfer: transfer, error: error)
    case .replyReceived(let identifier, let sequence, let time, let bytes):
      record(
        identifier, bytes: bytes, .sessionMessage, .delivered,
        transfer: "\(device)#message-\(time)-\(sequence)",
        kind: Self.reply)
    case .replyFailed(let identifier, let sequence, let time, let error):
      record(
        identifier, bytes: 0, .sessionMessage, .failed, transfer: "\(device)#message-\(time)-\(sequence)",
        kind: Self.reply, error: error)
    case .contextQueued(let identifier, let version, let bytes):
      pending.withLock { $0.contexts[version] = [(identifier, bytes, .pass)] }
      record(identifier, bytes: bytes, .sessionContext, .queued, transfer: "\(device)#context-\(version)")
    case .contextRemoved(let identifiers, let version):
      // A removal is a clear of each identifier, not a pass: nothing new was sent for them.
      pending.withLock { $0.contexts[version] = identifiers.map { ($0, 0, .clear) } }
      for identifier in identifiers {
        record(
          identifier, bytes: 0, .sessionContext, .queued, transfer: "\(device)#context-\(version)",
          kind: .clear)
      }
    case .contextDelivered(let version, let bytes):
      let queued = pending.withLock { pending -> [(identifier: String, bytes: Int, kind: TrafficKind)] in
        let queued = pending.contexts[version] ?? []
        pending.contexts = pending.contexts.filter { $0.key > version }
        return queued
      }
      for sent in queued.isEmpty ? [(Self.wholeContext, bytes, TrafficKind.pass)] : queued {
        record(
          sent.identifier, bytes: sent.bytes, .sessionContext, .delivered,
          transfer: "\(device)#context-\(version)",
          kind: sent.kind)
      }
    case .contextFailed(let identifier, let bytes, let error):
      record(identifier, bytes: bytes, .sessionContext, .failed, transfer: nil, error: error)
    case .transferQueued(let transfer):
      pending.withLock { $0.transfers[transfer.id] = transfer }
      record(
        transfer.identifier, bytes: transfer.bytes, .sessionFile, .queued,
        transfer: Self.transferIdentifier(sender: device, transfer: transfer.id))
    case .transfersDelivered(let ids):
      for id in ids {
        let transfer = pending.withLock { $0.transfers.removeValue(forKey: id) }
        record(
          transfer?.identifier ?? Self.unknownTransfer, bytes: transfer?.bytes ?? 0, .sessionFile, .delivered,
          transfer: Self.transferIdentifier(sender: device, transfer: id))
      }
    case .transferCancelled(let transfer):
      pending.withLock { _ = $0.transfers.removeValue(forKey: transfer.id) }
      record(
        transfer.identifier, bytes: transfer.bytes, .sessionFile, .cancelled,
        transfer: Self.transferIdentifier(sender: device, transfer: transfer.id))
    case .transferFailed(let identifier, let bytes, let error):
      record(identifier, bytes: bytes, .sessionFile, .failed, transfer: nil, error: error)
    case .messageReceived(let identifier, let sequence, let time, let bytes):
      record(
        identifier, bytes: bytes, .sessionMessage, .delivered, transfer: "\(peer)#message-\(time)-\(sequence)"
      )
    case .contextReceived(let version, let identifiers, let bytes, let removed):
      for identifier in identifiers.isEmpty ? [Self.wholeContext] : identifiers {
        let isRemoved = removed.contains(identifier)
        record(
          identifier, bytes: isRemoved ? 0 : bytes, .sessionContext, .delivered,
          transfer: "\(peer)#context-\(version)", kind: isRemoved ? .clear : .pass)
      }
    }
  }

  /// The kind of a reply's record (received, or timed out): a record kind the model shows as is.
  public static let reply = TrafficKind(rawValue: "reply")
  /// The identifier a context's record names when no one identifier is known (a context
  /// re-sent after a restart, or an identical one delivered on request).
  public static let wholeContext = "(context)"
  /// The identifier of a delivered transfer queued by an earlier run whose record is gone.
  static let unknownTransfer = "(transfer)"

  private func record(
    _ identifier: String, bytes: Int, _ transiting: TransitingType, _ delivery: TrafficDelivery,
    transfer: String?, kind: TrafficKind = .pass, error: SessionError? = nil
  ) {
    let entry = Wormhole.JournalEntry(
      kind: kind, identifier: identifier, bytes: bytes, transiting: transiting,
      details: TrafficDetails(device: device, peer: peer, delivery: delivery, transfer: transfer),
      error: error?.description)
    batch.withLock { $0.append(entry) }
  }
}
