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

  /// The last `maximum` bytes of the file at `path` (all of it when smaller), and whether it was
  /// cut; `nil` when there is no file.
  static func readTail(_ path: String, maximum: Int) throws(WormholeError) -> (
    bytes: [UInt8], truncated: Bool
  )? {
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      if errno == ENOENT { return nil }
      throw .fileSystem(operation: "read", path: path, code: errno)
    }
    defer { _ = close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw .fileSystem(operation: "read", path: path, code: errno)
    }
    let size = Int(status.st_size)
    let start = max(0, size - maximum)
    var result = [UInt8](repeating: 0, count: size - start)
    var filled = 0
    while filled < result.count {
      let count = result.withUnsafeMutableBytes { buffer in
        pread(
          descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled, off_t(start + filled))
      }
      if count < 0 && errno == EINTR { continue }
      if count < 0 { throw .fileSystem(operation: "read", path: path, code: errno) }
      if count == 0 { break }
      filled += count
    }
    result.removeSubrange(filled...)
    return (result, start > 0)
  }

  /// The sequence number of the last complete record in the file open at `descriptor`, of
  /// `size` bytes, or `nil` when none is found within its last 4 MiB.
  ///
  /// Usually the last line is a record and a 4 KiB read finds it. After damage (a foreign
  /// writer's long lines) the file is read backwards in 128 KiB windows that overlap by 64 KiB,
  /// so that any line shorter than ``TrafficJournalReader/maximumLineLength`` lies whole in one.
  static func lastSequence(descriptor: Int32, size: Int) -> UInt64? {
    guard size > 0 else { return nil }
    let floor = max(0, size - (4 << 20))
    let window = 2 * TrafficJournalReader.maximumLineLength
    var buffer = [UInt8](repeating: 0, count: window)
    var end = size
    var length = min(4096, size - floor)
    while true {
      let start = max(floor, end - length)
      let count = buffer.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress, end - start, off_t(start))
      }
      guard count > 0 else { return nil }
      if let found = lastRecordSequence(in: buffer[0..<count], isFileStart: start == 0) { return found }
      if start == floor { return nil }
      // Widen to a full window ending where this one ended, then step back half a window.
      end = length < window ? end : start + window / 2
      length = window
    }
  }

  /// The sequence number of the last complete line in `bytes` that is a record. A line is
  /// complete when a newline ends it and one starts it (or the file starts there).
  private static func lastRecordSequence(in bytes: ArraySlice<UInt8>, isFileStart: Bool) -> UInt64? {
    let newline = UInt8(ascii: "\n")
    guard var lineEnd = bytes.lastIndex(of: newline) else { return nil }
    while true {
      var scan = lineEnd
      while scan > bytes.startIndex && bytes[scan - 1] != newline { scan -= 1 }
      let lineStart = scan
      let startsLine = lineStart > bytes.startIndex || isFileStart
      guard startsLine else { return nil }
      if let record = TrafficRecord(jsonLine: String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self)) {
        return record.sequence
      }
      guard lineStart > bytes.startIndex else { return nil }
      lineEnd = lineStart - 1
    }
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
      var line: [UInt8] = []
      if state.inode == UInt64(status.st_ino) && state.end == size {
        sequence = state.sequence + 1
      } else {
        // Someone else wrote last. If that was a torn line (a writer that died mid-write), end
        // it, so that this record is not glued to it and lost.
        var last: UInt8 = 0
        if size > 0 && pread(descriptor, &last, 1, off_t(size - 1)) == 1 && last != UInt8(ascii: "\n") {
          line.append(UInt8(ascii: "\n"))
        }
        // Sequence numbers only grow, so what this writer wrote last is a lower bound even when
        // the journal's tail is damaged.
        let found =
          TrafficJournal.lastSequence(descriptor: descriptor, size: size) ?? rotatedLastSequence() ?? 0
        sequence = max(found, state.sequence) + 1
      }
      let record = make(sequence, currentMilliseconds())
      line.append(contentsOf: record.jsonLineBytes)
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
