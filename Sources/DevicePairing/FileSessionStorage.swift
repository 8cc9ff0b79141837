import DeviceSession
import Synchronization
import WormholeVocabulary

/// A device's ``SessionStorage`` in its directory (see ``DeviceDirectory``), for the process
/// that holds the device's run lock.
///
/// Every file is replaced atomically (a temporary file renamed over it), so a device killed at
/// any point leaves the old state or the new. Files are not flushed to disk: a killed process
/// loses nothing that way, only a crash of the machine could. The formats (big-endian):
///
/// ```
/// application-context, received-context:  "WDC1" u64 version u64 acknowledged-version entries
///   entries: u32 count, then per identifier u16 length, identifier, u32 length, archive
/// outbox/log:  the outbound queue, appended to (see `OutboxLog`)
/// outbox/<id>.transfer:  "WDT1" u64 id i64 time u16 length identifier u32 length archive (the
///   queue of earlier versions, one file per transfer: read, and moved into the log on load)
/// outbox/next-id, received-transfers, storing-transfers:  a decimal number (20 digits) and a
///   newline, rewritten in place (see `NumberFile`)
/// ```
///
/// A received transfer's mailbox write is journaled as a `session-file` record with the device
/// fields and the transfer identifier the sender's records share (see ``SessionJournal``).
/// `storing-transfers` holds the last id of the batch being stored, written before it: when it is
/// above `received-transfers` at start, a run was killed between storing and recording, and the
/// ids the journal already names are not journaled (nor written) again when they are re-sent.
public final class FileSessionStorage: SessionStorage {
  /// The device's directory.
  public let directory: DeviceDirectory
  /// Where received transfers are stored as mailboxes.
  public let mailboxes: MailboxDelivery
  private let nextTransfer = Mutex<UInt64?>(nil)
  private let nextTransferFile: NumberFile
  private let receivedTransfersFile: NumberFile
  private let storingTransfersFile: NumberFile
  /// Transfers a killed run stored and journaled without recording their ids (see above).
  private let alreadyStored = Mutex<Set<UInt64>>([])
  private let outbox: OutboxLog
  private static let contextMagic = Array("WDC1".utf8)
  private static let transferMagic = Array("WDT1".utf8)
  private static let limit = FrameCodec.defaultMaximumFrameBytes + 64

  /// The storage of `directory`, whose received transfers go to the mailboxes of `mailboxes`.
  public init(directory: DeviceDirectory, mailboxes: MailboxDelivery) throws(SessionError) {
    self.directory = directory
    self.mailboxes = mailboxes
    nextTransferFile = NumberFile(path: directory.nextTransferPath)
    receivedTransfersFile = NumberFile(path: directory.receivedTransfersPath)
    storingTransfersFile = NumberFile(path: Self.storingTransfersPath(directory))
    outbox = OutboxLog(directory: directory)
    do {
      try DeviceFiles.makeDirectories(directory.path)
      try DeviceFiles.makeDirectory(directory.outboxPath)
    } catch { throw .storage(error.message) }
  }

  public func load() throws(SessionError) -> SessionSnapshot {
    let (context, acknowledged) = try readContext(directory.applicationContextPath)
    let (received, _) = try readContext(directory.receivedContextPath)
    let transfers = try outbox.load().transfers
    let lastReceived = try readNumber(directory.receivedTransfersPath) ?? 0
    if let storing = try readNumber(Self.storingTransfersPath(directory)), storing > lastReceived {
      let stored = journaledTransfers(after: lastReceived, upTo: storing)
      alreadyStored.withLock { $0 = stored }
    }
    return SessionSnapshot(
      applicationContext: context, acknowledgedContextVersion: acknowledged, receivedContext: received,
      outboundTransfers: transfers, lastReceivedTransfer: lastReceived
    )
  }

  static func storingTransfersPath(_ directory: DeviceDirectory) -> String {
    directory.path + "/storing-transfers"
  }

  /// The device string of the counterpart, which sends what this device receives.
  private var sender: String { SessionJournal.name(directory.address.counterpart) }

  /// The ids in `range` whose stored record this device's journal already holds.
  private func journaledTransfers(after lower: UInt64, upTo upper: UInt64) -> Set<UInt64> {
    let device = SessionJournal.name(directory.address)
    let prefix = sender + "#"
    var ids = Set<UInt64>()
    for record in mailboxes.journaledRecords()
    where record.device == device && record.transiting == TransitingType.sessionFile.rawValue
      && record.outcome == .ok
    {
      guard let transfer = record.transfer, transfer.hasPrefix(prefix),
        let id = UInt64(transfer.dropFirst(prefix.count)), id > lower, id <= upper
      else { continue }
      ids.insert(id)
    }
    return ids
  }

  /// The journal details of a received transfer: this device, its sender, delivered, and the
  /// identifier the sender's records of it carry.
  private func details(of transfer: FileTransfer) -> TrafficDetails {
    TrafficDetails(
      device: SessionJournal.name(directory.address), peer: sender, delivery: .delivered,
      transfer: SessionJournal.transferIdentifier(sender: sender, transfer: transfer.id))
  }

  public func saveApplicationContext(_ context: SessionContext, acknowledgedVersion: UInt64)
    throws(SessionError)
  {
    try write(Self.encode(context, acknowledged: acknowledgedVersion), to: directory.applicationContextPath)
  }

  public func saveReceivedContext(_ context: SessionContext) throws(SessionError) {
    try write(Self.encode(context, acknowledged: 0), to: directory.receivedContextPath)
  }

  public func enqueueTransfer(identifier: String, payload: [UInt8], time: Int64) throws(SessionError)
    -> FileTransfer
  {
    if let reason = MessageIdentifier.problem(with: identifier) {
      throw .invalidIdentifier(identifier, reason: reason)
    }
    let id = try nextTransfer.withLock { next throws(SessionError) -> UInt64 in
      let id: UInt64
      if let next {
        id = next
      } else {
        let recorded = try readNumber(directory.nextTransferPath) ?? 1
        id = max(recorded, try outbox.largestID() + 1)
      }
      // The counter is stored before the transfer: a crash in between skips an id, never reuses one.
      do throws(SystemCallFailure) { try nextTransferFile.write(id + 1) } catch {
        throw .storage(error.message)
      }
      next = id + 1
      return id
    }
    let transfer = FileTransfer(id: id, identifier: identifier, payload: payload, time: time)
    try outbox.append(transfer)
    return transfer
  }

  public func removeTransfer(_ id: UInt64) throws(SessionError) {
    try removeTransfers([id])
  }

  public func removeTransfers(_ ids: [UInt64]) throws(SessionError) {
    try outbox.remove(ids)
  }

  public func storeReceivedTransfer(_ transfer: FileTransfer) throws(SessionError) {
    try storeReceivedTransfers([transfer])
  }

  /// Stores the batch with one mailbox write per identifier (the last archive for it) and one
  /// journal record per transfer, then records the last id. Transfers a killed run already
  /// stored and journaled are left out (their mailboxes were written before their records).
  public func storeReceivedTransfers(_ transfers: [FileTransfer]) throws(SessionError) {
    guard let last = transfers.last else { return }
    for transfer in transfers {
      if let reason = MessageIdentifier.problem(with: transfer.identifier) {
        throw .invalidIdentifier(transfer.identifier, reason: reason)
      }
    }
    do { try storingTransfersFile.write(last.id) } catch { throw .storage(error.message) }
    let stored = alreadyStored.withLock { $0 }
    let fresh = stored.isEmpty ? transfers : transfers.filter { !stored.contains($0.id) }
    try mailboxes.store(
      transfers: fresh.map { (identifier: $0.identifier, archive: $0.payload, details: details(of: $0)) })
    try skipReceivedTransfer(last.id)
    if !stored.isEmpty { alreadyStored.withLock { $0.subtract(transfers.map(\.id)) } }
  }

  public func skipReceivedTransfer(_ id: UInt64) throws(SessionError) {
    do { try receivedTransfersFile.write(id) } catch { throw .storage(error.message) }
  }

  // MARK: Formats

  private func write(_ bytes: [UInt8], to path: String) throws(SessionError) {
    do { try DeviceFiles.writeAtomically(bytes, to: path) } catch { throw .storage(error.message) }
  }

  private func readFile(_ path: String) throws(SessionError) -> [UInt8]? {
    do { return try DeviceFiles.read(path, limit: Self.limit) } catch { throw .storage(error.message) }
  }

  private func readNumber(_ path: String) throws(SessionError) -> UInt64? {
    guard let bytes = try readFile(path) else { return nil }
    let text = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    guard let number = UInt64(text) else {
      throw .storage("\(PairDisplay.field(path)) does not hold a number (delete the pair if it is damaged)")
    }
    return number
  }

  static func encode(_ context: SessionContext, acknowledged: UInt64) -> [UInt8] {
    var writer = ByteWriter()
    writer.append(contentsOf: contextMagic)
    writer.append(context.version)
    writer.append(acknowledged)
    writer.append(contentsOf: context.encodedEntries())
    return writer.bytes
  }

  private func readContext(_ path: String) throws(SessionError) -> (SessionContext, UInt64) {
    try Self.context(at: path)
  }

  /// The context in the file at `path` (a device's ``DeviceDirectory/receivedContextPath`` or
  /// ``DeviceDirectory/applicationContextPath``) and the version acknowledged, read without
  /// taking the device's run lock; empty when there is no file.
  public static func context(at path: String) throws(SessionError) -> (SessionContext, UInt64) {
    let file: [UInt8]?
    do { file = try DeviceFiles.read(path, limit: limit) } catch { throw .storage(error.message) }
    guard let bytes = file else { return (SessionContext(), 0) }
    do throws(FrameError) {
      var reader = ByteReader(bytes)
      guard try reader.readBytes(4) == Self.contextMagic else { throw FrameError.malformed("bad magic") }
      let version = try reader.readUInt64()
      let acknowledged = try reader.readUInt64()
      let entries = try SessionContext.decodeEntries(Array(bytes[reader.offset...]))
      return (SessionContext(entries: entries, version: version), acknowledged)
    } catch {
      throw .storage(Self.damagedContext(path, error.description))
    }
  }

  /// What a damaged context file says: the file, that it is damaged (and how), that the device
  /// does not start with it, and the way out. The file is never replaced or removed here: only
  /// the operator moves it aside, which loses the values it held.
  static func damagedContext(_ path: String, _ reason: String) -> String {
    let field = PairDisplay.field(path)
    let aside = PairDisplay.field(path + ".damaged")
    return "the context file \(field) is damaged (\(reason)), so the device does not start with it: "
      + "move it aside (mv \(field) \(aside)) to start with an empty context; the values it held "
      + "are then lost"
  }

  /// The transfer in the queue file at `path`, `nil` when there is none.
  static func readTransfer(_ path: String) throws(SessionError) -> FileTransfer? {
    let file: [UInt8]?
    do { file = try DeviceFiles.read(path, limit: limit) } catch { throw .storage(error.message) }
    guard let bytes = file else { return nil }
    do throws(FrameError) {
      var reader = ByteReader(bytes)
      guard try reader.readBytes(4) == Self.transferMagic else { throw FrameError.malformed("bad magic") }
      let id = try reader.readUInt64()
      let time = Int64(bitPattern: try reader.readUInt64())
      let identifier = try reader.readText(Int(try reader.readUInt16()), what: "identifier")
      let payload = try reader.readBytes(Int(try reader.readUInt32()))
      return FileTransfer(id: id, identifier: identifier, payload: payload, time: time)
    } catch {
      throw .storage("\(PairDisplay.field(path)) is damaged: \(error.description)")
    }
  }
}
