import Dispatch
import Glibc
import Inotify
import Synchronization

/// Reads a directory's traffic journal incrementally: each ``readAvailable()`` returns the records
/// appended since the last call, following rotation (the rotated file is drained before the new
/// one is opened) and never returning a sequence number twice.
public final class TrafficJournalReader {
  public let directory: String
  private let path: String
  private var descriptor: Int32 = -1
  private var inode: (dev: UInt64, ino: UInt64) = (0, 0)
  private var offset = 0
  private var pending: [UInt8] = []
  /// Set after an over-long line was dropped: bytes are skipped up to the next newline.
  private var skippingLine = false

  /// The longest line kept; a record is far shorter (identifiers and senders are bounded), so a
  /// longer one is not a record, and dropping it keeps a damaged journal from filling memory.
  static let maximumLineLength = 64 * 1024
  /// The most of one file read when starting from its beginning: a journal this library writes
  /// rotates long before, so only a foreign or damaged one is cut (its oldest part is skipped).
  static let maximumBacklog = 64 << 20
  private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
  /// The sequence number of the last record returned (or skipped when starting at the end).
  public private(set) var lastSequence: UInt64?

  /// A reader of the journal in `directory`. With `startingAtEnd`, records already there are
  /// skipped and every record appended later is returned; otherwise every retained record is
  /// returned too (the rotated file's, then the current file's).
  public init(directory: String, startingAtEnd: Bool) {
    self.directory = directory
    self.path = directory + "/" + TrafficJournal.fileName
    guard startingAtEnd else { return }
    if openCurrent() {
      var status = stat()
      if fstat(descriptor, &status) == 0 {
        offset = Int(status.st_size)
        lastSequence = TrafficJournal.lastSequence(descriptor: descriptor, size: offset)
      }
    }
    if lastSequence == nil {
      // No current journal (or an empty one): what the rotated file holds is not new either.
      let rotated = open(
        directory + "/" + TrafficJournal.rotatedFileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
      if rotated >= 0 {
        var status = stat()
        if fstat(rotated, &status) == 0 {
          lastSequence = TrafficJournal.lastSequence(descriptor: rotated, size: Int(status.st_size))
        }
        _ = close(rotated)
      }
    }
  }

  deinit {
    if descriptor >= 0 { _ = close(descriptor) }
  }

  /// The records appended since the last call, oldest first.
  ///
  /// A reader that falls more than one rotation behind has lost the generations in between
  /// (only one rotated file is kept); the gap shows in the sequence numbers.
  public func readAvailable() -> [TrafficRecord] {
    var records: [TrafficRecord] = []
    for _ in 0..<8 {
      if descriptor < 0 {
        // Before opening the current file, take what the rotated one holds that is newer than
        // what was seen: after a rotation it is the generation we have not read yet.
        drainRotatedGeneration(into: &records)
        if !openCurrent() { return records }
      }
      drain(into: &records)
      var named = stat()
      if stat(path, &named) != 0 { return records }  // rotated, the new file not there yet
      if UInt64(named.st_dev) == inode.dev && UInt64(named.st_ino) == inode.ino { return records }
      // Rotated (or replaced): what we drained was the old file's end; move on.
      _ = close(descriptor)
      descriptor = -1
      pending.removeAll()
    }
    return records
  }

  private func drainRotatedGeneration(into records: inout [TrafficRecord]) {
    let rotated = directory + "/" + TrafficJournal.rotatedFileName
    var status = stat()
    // The file just drained (now rotated) needs no second read.
    guard stat(rotated, &status) == 0,
      !(UInt64(status.st_dev) == inode.dev && UInt64(status.st_ino) == inode.ino),
      let bytes = try? TrafficJournal.readTail(rotated, maximum: Self.maximumBacklog)
    else { return }
    // Its own lines only: a partial line of the current file does not continue into it, and an
    // unterminated last line of its own is a torn write.
    let saved = (pending, skippingLine)
    pending = []
    skippingLine = bytes.truncated
    consume(bytes.bytes[...], into: &records)
    (pending, skippingLine) = saved
  }

  /// Parses the complete lines in `bytes`, keeping records newer than the last one returned.
  private func append(lines bytes: ArraySlice<UInt8>, to records: inout [TrafficRecord]) {
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
      guard let record = TrafficRecord(jsonLine: String(decoding: line, as: UTF8.self)) else { continue }
      if let lastSequence, record.sequence <= lastSequence { continue }
      lastSequence = record.sequence
      records.append(record)
    }
  }

  private func openCurrent() -> Bool {
    let opened = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard opened >= 0 else { return false }
    var status = stat()
    guard fstat(opened, &status) == 0 else {
      _ = close(opened)
      return false
    }
    descriptor = opened
    inode = (UInt64(status.st_dev), UInt64(status.st_ino))
    offset = 0
    return true
  }

  private func drain(into records: inout [TrafficRecord]) {
    var status = stat()
    if fstat(descriptor, &status) == 0 && Int(status.st_size) < offset {
      // Truncated in place: start over.
      offset = 0
      pending.removeAll()
    }
    if offset == 0 && Int(status.st_size) > Self.maximumBacklog {
      offset = Int(status.st_size) - Self.maximumBacklog
      skippingLine = true
    }
    while true {
      let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return }
      offset += count
      consume(chunk[0..<count], into: &records)
    }
  }

  /// Adds bytes to the partial line and returns the complete records, dropping any line longer
  /// than ``maximumLineLength`` (up to its newline, however far that is).
  private func consume(_ bytes: ArraySlice<UInt8>, into records: inout [TrafficRecord]) {
    var bytes = bytes
    if skippingLine {
      guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return }
      bytes = bytes[(newline + 1)...]
      skippingLine = false
    }
    pending.append(contentsOf: bytes)
    if let lastNewline = pending.lastIndex(of: UInt8(ascii: "\n")) {
      append(lines: pending[..<lastNewline], to: &records)
      pending.removeSubrange(...lastNewline)
    }
    if pending.count > Self.maximumLineLength {
      pending.removeAll()
      skippingLine = true
    }
  }
}

/// Follows a directory's traffic journal with inotify and hands each batch of new records to a
/// handler. Records arrive in order; a burst is read as one batch.
///
/// It runs one thread of its own, blocked in `poll` on the inotify descriptor, and calls the
/// handler on that thread (or on `queue`, when one is given), so that a wake-up costs one thread
/// switch, as a hand-written inotify loop would. It watches the journal file itself, so mailbox
/// writes in the same directory cost it nothing, and watches the directory only while the
/// journal is missing (before the first post, or between a rotation's rename and the new file).
public final class TrafficJournalFollower: @unchecked Sendable {
  // After `init`, everything mutable is touched only by the follower thread.
  private let inotify: Inotify
  private let reader: TrafficJournalReader
  private let handler: @Sendable ([TrafficRecord]) -> Void
  private let queue: DispatchQueue?
  private let directory: String
  private let journalPath: String
  private var watches: Watches
  /// A connected socket pair: writing to one end wakes the thread for cancellation.
  private let cancelReader: Int32
  private let cancelWriter: Int32
  private let state = Mutex(FollowerState())

  private struct FollowerState {
    var thread: pthread_t?
    var cancelled = false
  }

  private struct Watches {
    var file: Int32?
    var directory: Int32?
  }

  /// Starts following the journal in `directory` (which must exist). With `startingAtEnd`, only
  /// records appended from now on are delivered. The handler runs on the follower's own thread,
  /// one batch at a time, or on `queue` when one is given.
  public init(
    directory: String, startingAtEnd: Bool = true, queue: DispatchQueue? = nil,
    handler: @escaping @Sendable ([TrafficRecord]) -> Void
  ) throws(WormholeError) {
    try FileSystem.checkDirectory(directory)
    do {
      inotify = try Inotify()
    } catch {
      throw .containerUnavailable(path: directory, reason: error.description)
    }
    // A socket pair rather than a pipe: its close-on-exec flag is set atomically (pipe2 and
    // eventfd are not visible to Swift on Glibc).
    var ends: [Int32] = [-1, -1]
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
    guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
      throw .containerUnavailable(
        path: directory, reason: "cannot create a wake-up socket: \(String(cString: strerror(errno)))")
    }
    self.cancelReader = ends[0]
    self.cancelWriter = ends[1]
    self.directory = directory
    self.journalPath = directory + "/" + TrafficJournal.fileName
    self.handler = handler
    self.queue = queue
    // Watch before reading the starting position, so that no append falls in between.
    var watches = Watches()
    do {
      try Self.arm(&watches, inotify: inotify, directory: directory, journalPath: journalPath)
    } catch {
      _ = close(ends[0])
      _ = close(ends[1])
      throw error
    }
    self.watches = watches
    self.reader = TrafficJournalReader(directory: directory, startingAtEnd: startingAtEnd)
    try start(deliverFirst: !startingAtEnd)
  }

  deinit {
    cancel()
    _ = close(cancelReader)
    _ = close(cancelWriter)
  }

  /// Stops following; no handler call starts after this returns (a call in progress, or this
  /// one when made from the handler itself, finishes).
  public func cancel() {
    let thread = state.withLock { state -> pthread_t? in
      guard !state.cancelled else { return nil }
      state.cancelled = true
      defer { state.thread = nil }
      return state.thread
    }
    guard let thread else { return }
    var byte: UInt8 = 1
    _ = write(cancelWriter, &byte, 1)
    if pthread_equal(thread, pthread_self()) != 0 {
      pthread_detach(thread)
    } else {
      pthread_join(thread, nil)
    }
    // Batches already handed to `queue` check `isCancelled` when they run; waiting for the
    // queue here would deadlock a caller that cancels from a block on it.
  }

  private func start(deliverFirst: Bool) throws(WormholeError) {
    let box = Box(self, deliverFirst: deliverFirst)
    let context = Unmanaged.passRetained(box).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
      &thread, nil,
      { context in
        guard let context else { return nil }
        TrafficJournalFollower.run(Unmanaged<Box>.fromOpaque(context).takeRetainedValue())
        return nil
      }, context)
    guard status == 0 else {
      // `deinit` closes the descriptors (every property is set, so it runs).
      Unmanaged<Box>.fromOpaque(context).release()
      throw .containerUnavailable(
        path: directory, reason: "cannot start a thread: \(String(cString: strerror(status)))")
    }
    state.withLock { $0.thread = thread }
  }

  /// What the thread needs, without keeping the follower alive: the follower is held only while
  /// a wake-up is handled, never while blocked in `poll`, so dropping the last reference to it
  /// ends the thread (`deinit` cancels).
  private final class Box: @unchecked Sendable {
    weak var follower: TrafficJournalFollower?
    let deliverFirst: Bool
    let inotifyDescriptor: Int32
    let cancelDescriptor: Int32
    init(_ follower: TrafficJournalFollower, deliverFirst: Bool) {
      self.follower = follower
      self.deliverFirst = deliverFirst
      self.inotifyDescriptor = follower.inotify.fileDescriptor
      self.cancelDescriptor = follower.cancelReader
    }

    /// Whether the follower still exists and is not cancelled; checked before every `poll`, so a
    /// follower released on this thread (whose `deinit` closes the descriptors) is never polled.
    var isLive: Bool {
      guard let follower else { return false }
      return !follower.isCancelled
    }
  }

  private var isCancelled: Bool { state.withLock { $0.cancelled } }

  private static func run(_ box: Box) {
    if box.deliverFirst { box.follower?.deliver() }
    var descriptors = [
      pollfd(fd: box.inotifyDescriptor, events: Int16(POLLIN), revents: 0),
      pollfd(fd: box.cancelDescriptor, events: Int16(POLLIN), revents: 0),
    ]
    while box.isLive {
      let ready = poll(&descriptors, 2, -1)
      if ready < 0 && errno != EINTR { return }
      if descriptors[1].revents != 0 { return }
      if descriptors[0].revents != 0 { box.follower?.wake() }
    }
  }

  /// Watches the journal file if it exists, else the directory for its creation.
  private static func arm(_ watches: inout Watches, inotify: Inotify, directory: String, journalPath: String)
    throws(WormholeError)
  {
    for _ in 0..<3 {
      do {
        let watch = try inotify.addWatch(journalPath, mask: [.modify, .moveSelf, .deleteSelf, .dontFollow])
        if let old = watches.file, old != watch { inotify.removeWatch(old) }
        watches.file = watch
        if let directoryWatch = watches.directory {
          inotify.removeWatch(directoryWatch)
          watches.directory = nil
        }
        return
      } catch  where error.code == ENOENT {
        if watches.directory == nil {
          do {
            watches.directory = try inotify.addWatch(directory, mask: [.create, .movedTo, .onlyDirectory])
          } catch {
            throw .containerUnavailable(path: directory, reason: error.description)
          }
        }
        // The journal may have appeared between the two calls: try again, else wait for it.
        if FileSystem.status(journalPath) == nil { return }
      } catch {
        throw .containerUnavailable(path: directory, reason: error.description)
      }
    }
  }

  private func wake() {
    guard let events = try? inotify.readEvents(), !events.isEmpty else { return }
    var rearm = false
    var relevant = false
    for event in events {
      if event.mask.contains(.queueOverflow) {
        relevant = true
        rearm = true
      } else if event.watch == watches.file {
        relevant = true
        if !event.mask.isDisjoint(with: [.moveSelf, .deleteSelf, .ignored]) { rearm = true }
      } else if event.watch == watches.directory && event.name == TrafficJournal.fileName {
        relevant = true
        rearm = true
      }
    }
    guard relevant else { return }
    // Drain what the old file still holds before moving the watch to the new one.
    deliver()
    if rearm {
      try? Self.arm(&watches, inotify: inotify, directory: directory, journalPath: journalPath)
      deliver()
    }
  }

  private func deliver() {
    guard !isCancelled else { return }
    let records = reader.readAvailable()
    guard !records.isEmpty else { return }
    if let queue {
      queue.async { [self] in
        if !isCancelled { handler(records) }
      }
    } else {
      handler(records)
    }
  }
}
