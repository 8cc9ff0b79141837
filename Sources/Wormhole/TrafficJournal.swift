import Glibc
import KeyedArchive
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
  /// the current one. Lines that are not records (a torn write on a full disk) are skipped; a
  /// journal that cannot be read (a link, FIFO, device, directory or a file without permission
  /// in its place) is reported as ``WormholeError/journalUnusable(path:reason:)``.
  public static func records(inDirectory directory: String) throws(WormholeError) -> [TrafficRecord] {
    try FileSystem.checkDirectory(directory)
    let reader = TrafficJournalReader(directory: directory, startingAtEnd: false)
    let records = reader.readAvailable()
    if let problem = reader.problem { throw problem }
    return records
  }

  /// Throws unless `directory` exists and can be read (write access is not needed).
  public static func checkDirectory(_ directory: String) throws(WormholeError) {
    try FileSystem.checkDirectory(directory)
  }

  /// Opens the journal file at `path` as mailboxes are opened: without following a link, without
  /// blocking, and only when it is a regular file; `nil` when there is none. Anything else (a
  /// link, FIFO, device, socket, directory, or a file without permission) is reported as
  /// ``WormholeError/journalUnusable(path:reason:)``. Writable opens append and create it (0600).
  static func openJournal(_ path: String, writable: Bool) throws(WormholeError) -> (Int32, stat)? {
    let flags =
      writable
      ? O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
      : O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
    let descriptor = open(path, flags, 0o600)
    guard descriptor >= 0 else {
      let code = errno
      switch code {
      case ENOENT where !writable: return nil
      case ELOOP: throw .journalUnusable(path: path, reason: "it is a symbolic link, which is not followed")
      case EISDIR: throw .journalUnusable(path: path, reason: "it is a directory")
      case EACCES, EPERM:
        throw .journalUnusable(
          path: path,
          reason:
            "\(String(cString: strerror(code))) (its mode or owner does not let this user \(writable ? "append to" : "read") it)"
        )
      case ENXIO: throw .journalUnusable(path: path, reason: "it is a FIFO or socket, not a regular file")
      default:
        throw .fileSystem(operation: writable ? "open the journal" : "read", path: path, code: code)
      }
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let code = errno
      _ = close(descriptor)
      throw .fileSystem(operation: "read", path: path, code: code)
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      _ = close(descriptor)
      throw .journalUnusable(path: path, reason: "it is \(fileTypeName(status.st_mode)), not a regular file")
    }
    // Blocking again for reads and writes of the regular file (non-blocking only kept the open
    // from waiting on a FIFO's other end).
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
    return (descriptor, status)
  }

  /// "a FIFO", "a directory"... for a mode's file type.
  static func fileTypeName(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFIFO: return "a FIFO"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFSOCK: return "a socket"
    case S_IFDIR: return "a directory"
    case S_IFLNK: return "a symbolic link"
    default: return "a special file"
    }
  }

  /// The sequence number of the last record in the file open at `descriptor`, of `size` bytes,
  /// or `nil` when no line of it is a record.
  ///
  /// A line counts as readers see lines: at most ``TrafficJournalReader/maximumLineLength``
  /// bytes, ended by a newline, and parsed by ``TrafficRecord``. The unterminated tail counts
  /// too: an appender ends a torn line before its own record, and readers then see it whole.
  /// Usually the last line is a record and one 4 KiB read finds it. After damage (a foreign
  /// writer's long lines, garbage without newlines) the file is scanned backwards, window by
  /// window, to its start if need be: a longer line is passed over by finding its newlines, never
  /// read whole, so the cost is one read of the damaged part, once (a writer remembers where its
  /// own record ended and needs no read next time).
  static func lastSequence(descriptor: Int32, size: Int) -> UInt64? {
    guard size > 0 else { return nil }
    let newline = UInt8(ascii: "\n")
    let limit = TrafficJournalReader.maximumLineLength
    var window = min(4096, size)
    var buffer = [UInt8](repeating: 0, count: 128 * 1024)
    // The bytes in `scanned..<size` are scanned; the line being looked at ends at `lineEnd`.
    var scanned = size
    var lineEnd = size
    // What the last window read holds, to parse a line within it without another read.
    var held = (start: 0, count: 0)
    func sequence(ofLineFrom start: Int) -> UInt64? {
      let length = lineEnd - start
      guard length > 0, length <= limit else { return nil }
      if start >= held.start && lineEnd <= held.start + held.count {
        let from = start - held.start
        return TrafficRecord(jsonLineBytes: buffer[from..<(from + length)])?.sequence
      }
      var line = [UInt8](repeating: 0, count: length)
      let count = line.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, length, off_t(start)) }
      guard count == length else { return nil }
      return TrafficRecord(jsonLineBytes: line[...])?.sequence
    }
    while scanned > 0 {
      let start = max(0, scanned - window)
      let count = buffer.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress, scanned - start, off_t(start))
      }
      if count < 0 && errno == EINTR { continue }
      guard count == scanned - start else { return nil }
      held = (start, count)
      var index = count
      while index > 0 {
        index -= 1
        guard buffer[index] == newline else { continue }
        if let found = sequence(ofLineFrom: start + index + 1) { return found }
        lineEnd = start + index
      }
      scanned = start
      window = buffer.count
    }
    return sequence(ofLineFrom: 0)
  }

}

extension TrafficJournal {
  /// Who holds a `flock` on the file open at `descriptor`, from `/proc/locks`: "pid N (name)",
  /// or "another process" when that cannot be told (no `/proc`, another PID namespace).
  static func lockHolder(of descriptor: Int32) -> String {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return "another process" }
    // The file as /proc/locks names it: the device's major and minor numbers in hexadecimal, then
    // the inode (an inode number alone is shared by files of other file systems).
    let device = UInt64(status.st_dev)
    let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
    let minor = (device & 0xff) | ((device >> 12) & ~0xff)
    let file = [String(major, radix: 16), String(minor, radix: 16), String(status.st_ino)]
    // The table is made anew for each read(2), so one that others' locks change between reads
    // can skip a line: it is read in one large read, and read again when the holder is not in it.
    for _ in 0..<3 {
      if let holder = holder(of: file, in: locksTable()) { return holder }
    }
    return "another process"
  }

  /// /proc/locks, read with one large first read; empty when it cannot be read.
  private static func locksTable() -> [UInt8] {
    let table = open("/proc/locks", O_RDONLY | O_CLOEXEC)
    guard table >= 0 else { return [] }
    defer { _ = close(table) }
    guard case .bytes(let bytes) = FileSystem.readToEnd(table, expectedSize: 1 << 20, limit: 4 << 20) else {
      return []
    }
    return bytes
  }

  /// "pid N (name)" of the process holding a `flock` on `file` in `table`, if it is there.
  private static func holder(of file: [String], in table: [UInt8]) -> String? {
    for line in table.split(separator: UInt8(ascii: "\n")) {
      // "1: FLOCK  ADVISORY  WRITE 4242 fd:01:123456 0 EOF"; a waiter's line has "->".
      let fields = line.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
      guard fields.count >= 6, fields[1] == "FLOCK", fields[2] != "->",
        sameFile(fields[5], file),
        let pid = Int32(fields[4]), pid > 0
      else { continue }
      let name = (try? FileSystem.readMailbox("/proc/\(pid)/comm", limit: 4096)).flatMap { $0 }
        .map { String(decoding: $0.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self) }
      return "pid \(pid)" + (name.map { " (\(DisplayText.field($0)))" } ?? "")
    }
    return nil
  }

  /// Whether `field` (`MAJ:MIN:INODE`, the first two in hexadecimal) names `file`.
  private static func sameFile(_ field: String, _ file: [String]) -> Bool {
    let parts = field.split(separator: ":").map(String.init)
    guard parts.count == 3, let major = UInt64(parts[0], radix: 16), let minor = UInt64(parts[1], radix: 16)
    else { return false }
    return String(major, radix: 16) == file[0] && String(minor, radix: 16) == file[1] && parts[2] == file[2]
  }
}

/// Appends records to one directory's journal. One per ``Wormhole``; safe from any thread.
final class TrafficJournalWriter: Sendable {
  let directory: String
  let limit: Int
  /// How long an append waits for another process's lock before reporting it, in seconds.
  let lockTimeout: Double
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

  init(directory: String, limit: Int, lockTimeout: Double = 5) {
    self.directory = directory
    self.limit = max(limit, 4096)
    self.lockTimeout = lockTimeout
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
    // One record is a batch of one: `make` is called exactly once.
    var made: TrafficRecord?
    _ = try append(count: 1) { _, sequence, milliseconds in
      let record = make(sequence, milliseconds)
      made = record
      return record
    }
    guard let made else { throw .fileSystem(operation: "append to", path: path, code: EIO) }
    return made
  }

  /// Appends `count` records in one locked write (consecutive sequence numbers, one time): what
  /// `make` builds for each index from 0, in order. For a writer that gathers records (a device's
  /// session journal): one lock and one `write` for the batch instead of one each. Nothing of the
  /// batch is written when any of it cannot be.
  func append(
    count: Int, _ make: (_ index: Int, _ sequence: UInt64, _ milliseconds: Int64) -> TrafficRecord
  ) throws(WormholeError) -> [TrafficRecord] {
    guard count > 0 else { return [] }
    return try state.withLock { state throws(WormholeError) in
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
      // Past the bound (only a journal written by something else gets there) no number is left
      // that readers have not seen: starting again at 1 would repeat one.
      guard sequence <= TrafficRecord.maximumSequence - UInt64(count - 1) else {
        _ = flock(descriptor, LOCK_UN)
        throw .journalUnusable(
          path: path,
          reason:
            "its last record is numbered \(TrafficRecord.maximumSequence), the largest a record may have, so a new record would repeat a number; move it aside (rename it) and the next post starts a new journal at 1"
        )
      }
      let milliseconds = currentMilliseconds()
      var records: [TrafficRecord] = []
      records.reserveCapacity(count)
      for index in 0..<count {
        let record = make(index, sequence + UInt64(index), milliseconds)
        line.append(contentsOf: record.jsonLineBytes)
        line.append(UInt8(ascii: "\n"))
        records.append(record)
      }
      let code = FileSystem.writeAll(descriptor, line)
      guard code == 0 else {
        // Take back a torn line (a full disk) so that the journal stays one record a line.
        _ = ftruncate(descriptor, off_t(size))
        _ = flock(descriptor, LOCK_UN)
        throw .fileSystem(operation: "append to", path: path, code: code)
      }
      state.inode = UInt64(status.st_ino)
      state.end = size + line.count
      state.sequence = sequence + UInt64(count - 1)
      if size + line.count >= limit {
        rotate(&state)
      } else {
        _ = flock(descriptor, LOCK_UN)
      }
      return records
    }
  }

  /// Opens the journal if it is not open yet, so that a journal that cannot be used (a link, FIFO,
  /// device, directory, no permission) is reported before anything else is done.
  func prepare() throws(WormholeError) {
    try state.withLock { state throws(WormholeError) in
      if state.descriptor < 0 { state.descriptor = try open() }
    }
  }

  private func open() throws(WormholeError) -> Int32 {
    do throws(WormholeError) {
      // Writable opens create the file, so there is always a descriptor.
      guard let (descriptor, _) = try TrafficJournal.openJournal(path, writable: true) else {
        throw WormholeError.fileSystem(operation: "open the journal", path: path, code: ENOENT)
      }
      return descriptor
    } catch {
      if case .journalUnusable = error, let readOnly = FileSystem.readOnlyError(directory, code: EACCES) {
        throw readOnly
      }
      // A read-only file system (a mounted container) refuses the open itself.
      if case .fileSystem(_, _, let code) = error,
        let readOnly = FileSystem.readOnlyError(directory, code: code)
      {
        throw readOnly
      }
      throw error
    }
  }

  /// Opens (or reopens) the journal and takes its lock, making sure the locked file is still the
  /// current one: another process may have rotated it while we waited.
  private func lockCurrentJournal(_ state: inout State) throws(WormholeError) -> Int32 {
    for _ in 0..<100 {
      if state.descriptor < 0 { state.descriptor = try open() }
      try lock(state.descriptor)
      var opened = stat()
      var named = stat()
      if fstat(state.descriptor, &opened) == 0 && lstat(path, &named) == 0 && opened.st_ino == named.st_ino
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

  /// Takes the exclusive `flock`, waiting at most ``lockTimeout`` seconds for another holder:
  /// uncontended, one call; contended, retries with a growing pause (up to 20 ms).
  private func lock(_ descriptor: Int32) throws(WormholeError) {
    var deadline: timespec?
    var pause = 100_000  // nanoseconds
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      if code == EINTR { continue }
      guard code == EWOULDBLOCK else {
        throw .fileSystem(operation: "lock the journal", path: path, code: code)
      }
      var now = timespec()
      clock_gettime(CLOCK_MONOTONIC, &now)
      if deadline == nil {
        var end = now
        let whole = lockTimeout.rounded(.down)
        end.tv_sec += Int(whole)
        end.tv_nsec += Int((lockTimeout - whole) * 1e9)
        if end.tv_nsec >= 1_000_000_000 {
          end.tv_sec += 1
          end.tv_nsec -= 1_000_000_000
        }
        deadline = end
      } else if let deadline, (now.tv_sec, now.tv_nsec) >= (deadline.tv_sec, deadline.tv_nsec) {
        throw .journalLocked(
          path: path, holder: TrafficJournal.lockHolder(of: descriptor), seconds: lockTimeout)
      }
      var interval = timespec(tv_sec: 0, tv_nsec: pause)
      _ = nanosleep(&interval, nil)
      pause = min(pause * 2, 20_000_000)
    }
  }

  private func rotatedLastSequence() -> UInt64? {
    let rotated = directory + "/" + TrafficJournal.rotatedFileName
    guard let (descriptor, status) = try? TrafficJournal.openJournal(rotated, writable: false) else {
      return nil
    }
    defer { _ = close(descriptor) }
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
    guard let (descriptor, status) = try? TrafficJournal.openJournal(path, writable: true) else {
      // The next append reopens the path (and reports what is wrong with it); the defer closes
      // the old descriptor.
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
