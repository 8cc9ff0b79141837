import Glibc
import Synchronization

/// The traffic journal of one wormhole directory: `.wormhole-journal`, one JSON line per post,
/// rotated to `.wormhole-journal.1` when it passes its size limit.
///
/// Appends from any number of processes are serialized with `flock` on the journal, so records
/// never interleave and sequence numbers never repeat; each record is a single `write` to a file
/// opened with `O_APPEND`. A reader that follows the journal drains the rotated file before it
/// moves to the new one (see ``TrafficJournalReader``).
public enum TrafficJournal {
  /// The current journal's file name.
  public static let fileName = ".wormhole-journal"
  /// The previous journal's file name, after rotation.
  public static let rotatedFileName = ".wormhole-journal.1"
  /// The journal size that triggers rotation unless configured: 8 MiB, about 50,000 records.
  public static let defaultLimit = 8 << 20

  /// Every retained record of the journal in `directory`, oldest first: the rotated file, then
  /// the current one. Lines that are not records (a torn write on a full disk) are skipped.
  public static func records(inDirectory directory: String) throws(WormholeError) -> [TrafficRecord] {
    try FileSystem.checkDirectory(directory)
    return TrafficJournalReader(directory: directory, startingAtEnd: false).readAvailable()
  }

  static func readWhole(_ path: String) throws(WormholeError) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      if errno == ENOENT { return nil }
      throw .fileSystem(operation: "read", path: path, code: errno)
    }
    defer { _ = close(descriptor) }
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 256 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .fileSystem(operation: "read", path: path, code: errno)
      }
      if count == 0 { return result }
      result.append(contentsOf: chunk[0..<count])
    }
  }

  /// The sequence number of the last complete record in the file open at `descriptor`, of
  /// `size` bytes, or `nil` when it holds none.
  static func lastSequence(descriptor: Int32, size: Int) -> UInt64? {
    guard size > 0 else { return nil }
    let window = min(size, 16 * 1024)
    var tail = [UInt8](repeating: 0, count: window)
    let count = tail.withUnsafeMutableBytes {
      pread(descriptor, $0.baseAddress, window, off_t(size - window))
    }
    guard count > 0 else { return nil }
    let lines = tail[0..<count].split(separator: UInt8(ascii: "\n"))
    for line in lines.reversed() {
      if let record = TrafficRecord(jsonLine: String(decoding: line, as: UTF8.self)) {
        return record.sequence
      }
    }
    return nil
  }
}

/// Appends records to one directory's journal. One per ``Wormhole``; safe from any thread.
final class TrafficJournalWriter: Sendable {
  let directory: String
  let limit: Int
  private let path: String
  private let state = Mutex(State())

  private struct State {
    var descriptor: Int32 = -1
    var inode: UInt64 = 0
    /// The journal's size after our last append, and that append's sequence number: when the
    /// file still has that size, nobody else appended and the next number needs no read.
    var end: Int = -1
    var sequence: UInt64 = 0
  }

  init(directory: String, limit: Int) {
    self.directory = directory
    self.limit = max(limit, 4096)
    self.path = directory + "/" + TrafficJournal.fileName
  }

  deinit {
    state.withLock { if $0.descriptor >= 0 { _ = close($0.descriptor) } }
  }

  /// Appends the record `make` builds from the next sequence number and the current time, and
  /// returns it.
  @discardableResult
  func append(_ make: (_ sequence: UInt64, _ milliseconds: Int64) -> TrafficRecord) throws(WormholeError)
    -> TrafficRecord
  {
    try state.withLock { state throws(WormholeError) in
      let descriptor = try lockCurrentJournal(&state)
      var status = stat()
      guard fstat(descriptor, &status) == 0 else {
        let code = errno
        _ = flock(descriptor, LOCK_UN)
        throw .fileSystem(operation: "append to", path: path, code: code)
      }
      let size = Int(status.st_size)
      let sequence: UInt64
      if state.inode == UInt64(status.st_ino) && state.end == size {
        sequence = state.sequence + 1
      } else if let last = TrafficJournal.lastSequence(descriptor: descriptor, size: size) {
        sequence = last + 1
      } else {
        sequence = (rotatedLastSequence() ?? 0) + 1
      }
      let record = make(sequence, currentMilliseconds())
      var line = record.jsonLineBytes
      line.append(UInt8(ascii: "\n"))
      let code = FileSystem.writeAll(descriptor, line)
      guard code == 0 else {
        // Take back a torn line (a full disk) so that the journal stays one record a line.
        _ = ftruncate(descriptor, off_t(size))
        _ = flock(descriptor, LOCK_UN)
        throw .fileSystem(operation: "append to", path: path, code: code)
      }
      state.inode = UInt64(status.st_ino)
      state.end = size + line.count
      state.sequence = sequence
      if size + line.count >= limit {
        rotate(&state)
      } else {
        _ = flock(descriptor, LOCK_UN)
      }
      return record
    }
  }

  /// Opens (or reopens) the journal and takes its lock, making sure the locked file is still the
  /// current one: another process may have rotated it while we waited.
  private func lockCurrentJournal(_ state: inout State) throws(WormholeError) -> Int32 {
    for _ in 0..<100 {
      if state.descriptor < 0 {
        let descriptor = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
          throw .fileSystem(operation: "open the journal", path: path, code: errno)
        }
        state.descriptor = descriptor
      }
      while flock(state.descriptor, LOCK_EX) != 0 {
        guard errno == EINTR else {
          throw .fileSystem(operation: "lock the journal", path: path, code: errno)
        }
      }
      var opened = stat()
      var named = stat()
      if fstat(state.descriptor, &opened) == 0 && stat(path, &named) == 0 && opened.st_ino == named.st_ino
        && opened.st_dev == named.st_dev
      {
        return state.descriptor
      }
      _ = flock(state.descriptor, LOCK_UN)
      _ = close(state.descriptor)
      state.descriptor = -1
    }
    throw .fileSystem(operation: "lock the journal", path: path, code: EAGAIN)
  }

  private func rotatedLastSequence() -> UInt64? {
    let rotated = directory + "/" + TrafficJournal.rotatedFileName
    let descriptor = open(rotated, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { _ = close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return nil }
    return TrafficJournal.lastSequence(descriptor: descriptor, size: Int(status.st_size))
  }

  /// Moves the journal aside (replacing the previous rotation) and starts a new one while the old
  /// one is still locked, so that no append lands in between; then releases and closes the old
  /// one. Appenders waiting on the old file see that it is no longer current and reopen.
  private func rotate(_ state: inout State) {
    let old = state.descriptor
    defer {
      _ = flock(old, LOCK_UN)
      if state.descriptor != old { _ = close(old) }
    }
    let rotated = directory + "/" + TrafficJournal.rotatedFileName
    guard rename(path, rotated) == 0 else { return }
    let descriptor = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    var status = stat()
    guard descriptor >= 0, fstat(descriptor, &status) == 0 else {
      if descriptor >= 0 { _ = close(descriptor) }
      // The next append reopens the path; the defer closes the old descriptor.
      state.descriptor = -1
      state.end = -1
      return
    }
    state.descriptor = descriptor
    state.inode = UInt64(status.st_ino)
    state.end = 0
  }
}

/// Milliseconds since 1970 from the real-time clock.
func currentMilliseconds() -> Int64 {
  var spec = timespec()
  clock_gettime(CLOCK_REALTIME, &spec)
  return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
}
