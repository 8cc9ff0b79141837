import DeviceSession
import Glibc
import Synchronization
import Wormhole

/// A device's outbound queue as one append-only file, `outbox/log`, for the process that holds
/// the device's run lock (or, while the device is down, `PairStore` under that lock).
///
/// Records (big-endian), each appended with one `write`:
///
/// ```
/// "WDT1" u64 id i64 time u16 length identifier u32 length archive   a queued transfer
/// "WDX1" u64 id                                                      transfer id left the queue
/// ```
///
/// A transfer is queued once its record is written; acknowledged or cancelled ones get a removal
/// record (a batch of acknowledgements is one write). A process killed in the middle of an
/// append can leave a torn last record: it was never reported as queued, so it is cut off when
/// the log is next opened. The log is emptied (truncated) whenever the queue is, and rewritten
/// with only what is left when a device starts; no file is made or deleted per transfer, which
/// on ext4 made a burst of queued transfers slow (its inode allocator skips recently deleted
/// inodes). Queues written by earlier versions, one `outbox/<id>.transfer` file each, are read
/// too and moved into the log when the device starts.
final class OutboxLog: Sendable {
  let directory: DeviceDirectory
  private let state = Mutex(State())
  private static let transferMagic = Array("WDT1".utf8)
  private static let removalMagic = Array("WDX1".utf8)
  /// The largest log read: far more than any queue a device keeps.
  private static let limit = 1 << 32

  private struct State {
    var descriptor: Int32 = -1
    var queued: Set<UInt64> = []
    var largestID: UInt64 = 0
    var isLoaded = false
  }

  /// What the log and any older per-transfer files hold.
  struct Contents {
    /// Queued transfers not removed, oldest first.
    var transfers: [FileTransfer]
    /// The largest id ever written to the log (removed ones included).
    var largestID: UInt64
    /// The length of the log's whole records (a torn tail beyond is not counted).
    var length: Int
    /// Whether the log holds anything besides `transfers` (removals, removed transfers, a torn
    /// tail) or older per-transfer files are there: then it is worth rewriting.
    var isCompactable: Bool
    /// Ids of older per-transfer files.
    var legacyIDs: [UInt64]
  }

  init(directory: DeviceDirectory) { self.directory = directory }

  deinit { state.withLock { if $0.descriptor >= 0 { _ = close($0.descriptor) } } }

  var path: String { directory.outboxPath + "/log" }

  // MARK: Reading

  /// The queue on disk.
  static func read(_ directory: DeviceDirectory) throws(SessionError) -> Contents {
    let path = directory.outboxPath + "/log"
    let file: [UInt8]?
    do { file = try DeviceFiles.read(path, limit: limit) } catch { throw .storage(error.message) }
    let bytes = file ?? []
    var transfers: [UInt64: FileTransfer] = [:]
    var reader = ByteReader(bytes)
    var length = 0
    var largest: UInt64 = 0
    var removals = 0
    do throws(FrameError) {
      while reader.offset < bytes.count {
        let magic = try reader.readBytes(4)
        if magic == transferMagic {
          let id = try reader.readUInt64()
          let time = Int64(bitPattern: try reader.readUInt64())
          let identifier = try reader.readText(Int(try reader.readUInt16()), what: "identifier")
          let payload = try reader.readBytes(Int(try reader.readUInt32()))
          transfers[id] = FileTransfer(id: id, identifier: identifier, payload: payload, time: time)
          largest = max(largest, id)
        } else if magic == removalMagic {
          transfers[try reader.readUInt64()] = nil
          removals += 1
        } else {
          throw FrameError.malformed("bad magic at byte \(length)")
        }
        length = reader.offset
      }
    } catch {
      // A record cut short at the end is a torn append: dropped. Anything else is damage.
      guard case .truncated = error else {
        throw .storage("\(PairDisplay.field(path)) is damaged: \(error.description)")
      }
    }
    var legacyIDs: [UInt64] = []
    for id in legacyTransferIDs(in: directory) where transfers[id] == nil {
      if let transfer = try FileSessionStorage.readTransfer(directory.transferPath(id)) {
        transfers[id] = transfer
        legacyIDs.append(id)
      }
    }
    let queue = transfers.values.sorted { $0.id < $1.id }
    return Contents(
      transfers: queue, largestID: max(largest, queue.last?.id ?? 0), length: length,
      isCompactable: removals > 0 || length < bytes.count || !legacyIDs.isEmpty, legacyIDs: legacyIDs)
  }

  /// The ids of older per-transfer files (`outbox/<id>.transfer`), oldest first.
  static func legacyTransferIDs(in directory: DeviceDirectory) -> [UInt64] {
    let names = (try? DeviceFiles.entries(of: directory.outboxPath)) ?? []
    return names.compactMap { name -> UInt64? in
      guard name.hasSuffix(".transfer"), !name.hasPrefix(".") else { return nil }
      return UInt64(name.dropLast(".transfer".count))
    }.sorted()
  }

  // MARK: Writing

  /// Reads the queue and makes the log hold exactly it (rewritten when it holds more, older
  /// per-transfer files moved in), ready for appends.
  @discardableResult
  func load() throws(SessionError) -> Contents {
    try state.withLock { state throws(SessionError) -> Contents in
      let contents = try Self.read(directory)
      if state.descriptor >= 0 {
        _ = close(state.descriptor)
        state.descriptor = -1
      }
      if contents.isCompactable {
        var bytes: [UInt8] = []
        for transfer in contents.transfers { bytes += Self.record(transfer) }
        do throws(SystemCallFailure) {
          try DeviceFiles.writeAtomically(bytes, to: path)
          // Only once the log holds them: a crash before leaves them in both, read once by id.
          for id in contents.legacyIDs { _ = unlink(directory.transferPath(id)) }
        } catch {
          // Rewriting is only tidying (removal records and a torn tail take room, nothing else),
          // so a full disk must not stop a device that stores nothing (a live message): the log
          // is kept as it is, its torn tail cut off, which needs no room. Older per-transfer
          // files must move in, though (a removal appended for one would not outlive it).
          guard contents.legacyIDs.isEmpty, truncate(path, off_t(contents.length)) == 0 || errno == ENOENT
          else {
            throw .storage(
              error.message + " (rewriting the outbound queue at start; free some space on its file system)")
          }
        }
      }
      state.queued = Set(contents.transfers.map(\.id))
      state.largestID = contents.largestID
      state.isLoaded = true
      return contents
    }
  }

  /// The largest id the queue ever held.
  func largestID() throws(SessionError) -> UInt64 {
    try loadIfNeeded()
    return state.withLock { $0.largestID }
  }

  /// Whether transfer `id` is queued.
  func contains(_ id: UInt64) throws(SessionError) -> Bool {
    try loadIfNeeded()
    return state.withLock { $0.queued.contains(id) }
  }

  /// Appends `transfer`; it is queued once this returns.
  func append(_ transfer: FileTransfer) throws(SessionError) {
    try loadIfNeeded()
    try state.withLock { state throws(SessionError) in
      try write(Self.record(transfer), &state)
      state.queued.insert(transfer.id)
      state.largestID = max(state.largestID, transfer.id)
    }
  }

  /// Records that `ids` left the queue (one write); ids not queued are ignored. An emptied
  /// queue empties the log.
  func remove(_ ids: [UInt64]) throws(SessionError) {
    try loadIfNeeded()
    try state.withLock { state throws(SessionError) in
      var bytes: [UInt8] = []
      for id in ids where state.queued.remove(id) != nil {
        var writer = ByteWriter(capacity: 12)
        writer.append(contentsOf: Self.removalMagic)
        writer.append(id)
        bytes += writer.bytes
      }
      guard !bytes.isEmpty else { return }
      if state.queued.isEmpty {
        let descriptor = try open(&state)
        guard ftruncate(descriptor, 0) == 0 else { throw failure("empty", errno) }
      } else {
        try write(bytes, &state)
      }
    }
  }

  private func loadIfNeeded() throws(SessionError) {
    if !state.withLock({ $0.isLoaded }) { try load() }
  }

  private func open(_ state: inout State) throws(SessionError) -> Int32 {
    if state.descriptor >= 0 { return state.descriptor }
    let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else { throw failure("open", errno) }
    state.descriptor = descriptor
    return descriptor
  }

  private func write(_ bytes: [UInt8], _ state: inout State) throws(SessionError) {
    let descriptor = try open(&state)
    let code = FileSystem.writeAll(descriptor, bytes)
    guard code == 0 else { throw failure("write", code) }
  }

  private func failure(_ operation: String, _ code: Int32) -> SessionError {
    .storage(SystemCallFailure(operation: operation, path: path, code: code).message)
  }

  static func record(_ transfer: FileTransfer) -> [UInt8] {
    var writer = ByteWriter(capacity: transfer.payload.count + transfer.identifier.utf8.count + 30)
    writer.append(contentsOf: transferMagic)
    writer.append(transfer.id)
    writer.append(UInt64(bitPattern: transfer.time))
    writer.append(UInt16(transfer.identifier.utf8.count))
    writer.append(contentsOf: transfer.identifier.utf8)
    writer.append(UInt32(transfer.payload.count))
    writer.append(contentsOf: transfer.payload)
    return writer.bytes
  }
}
