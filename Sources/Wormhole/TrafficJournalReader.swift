import Dispatch
import Glibc
import Inotify
import Synchronization

/// Reads a directory's traffic journal incrementally: each ``readAvailable()`` returns the records
/// appended since the last call, following rotation (the rotated file is drained before the new
/// one is opened) and never returning a line twice.
///
/// What was read is tracked by position (which file, how far), not by sequence number, so that
/// numbers written by someone else cannot make it skip anything: a journal replaced, deleted and
/// created again, or truncated is read again from its start (a *restart*, counted in
/// ``restartCount``), and every record is returned whatever its number.
public final class TrafficJournalReader {
  public let directory: String
  private let path: String
  private let rotatedPath: String
  private var descriptor: Int32 = -1
  private var identity = FileIdentity(device: 0, inode: 0)
  private var offset = 0
  private var pending: [UInt8] = []
  /// Where in its file `pending` starts.
  private var pendingStart = 0
  /// Set after an over-long line was dropped: bytes are skipped up to the next newline.
  private var skippingLine = false
  /// The file read last before the current one (the current file before a rotation, or the
  /// rotated file), with how far: when the rotated file is that one, it is read only past that
  /// point. Only the last is kept: an inode number freed by a rotation is soon given to another
  /// file, so an older identity could name a file never read.
  private var finished: (identity: FileIdentity, offset: Int)?

  /// The longest line kept; a record is far shorter (identifiers and senders are bounded), so a
  /// longer one is not a record, and dropping it keeps a damaged journal from filling memory.
  static let maximumLineLength = 64 * 1024
  /// The most of one file read when starting from its beginning: a journal this library writes
  /// rotates long before, so only a foreign or damaged one is cut (its oldest part is skipped).
  static let maximumBacklog = 64 << 20
  private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
  /// The sequence number of the last record returned from the current file (or the last one
  /// there when starting at the end). Informational: reading does not depend on it.
  public private(set) var lastSequence: UInt64?
  /// How many times the journal was found replaced (deleted and created again, or another file
  /// renamed over it) or truncated, or numbering went back (a smaller sequence number than the
  /// last one returned), since this reader started.
  public private(set) var restartCount = 0
  /// Why the journal could not be read at the last attempt (a link, FIFO, device, directory or
  /// a file without permission in its place), or `nil` when it could (or is simply absent).
  public private(set) var problem: WormholeError?
  /// What the last ``readAvailable()`` found besides records, in the order found: lines skipped,
  /// numbering that jumped, records rotated away unread.
  public private(set) var irregularities: [TrafficJournalIrregularity] = []
  /// The sequence number of the last record returned from any file: a jump is measured from it.
  private var lastReturned: UInt64?
  /// Lines skipped since the last record returned: a gap they explain is not a jump.
  private var skippedSinceLastRecord = 0
  /// Set when the rotated file about to be read is not the one this reader finished: whole
  /// generations may have been rotated away in between.
  private var mayHaveMissedGeneration = false

  struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
    init(device: UInt64, inode: UInt64) {
      self.device = device
      self.inode = inode
    }
    init(_ status: stat) { self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) }
  }

  /// A reader of the journal in `directory`. With `startingAtEnd`, records already there are
  /// skipped and every record appended later is returned; otherwise every retained record is
  /// returned too (the rotated file's, then the current file's).
  public init(directory: String, startingAtEnd: Bool) {
    self.directory = directory
    self.path = directory + "/" + TrafficJournal.fileName
    self.rotatedPath = directory + "/" + TrafficJournal.rotatedFileName
    guard startingAtEnd else { return }
    // What the rotated file holds now is not new.
    if let (rotated, status) = try? TrafficJournal.openJournal(rotatedPath, writable: false) {
      finished = (FileIdentity(status), Int(status.st_size))
      lastSequence = TrafficJournal.lastSequence(descriptor: rotated, size: Int(status.st_size))
      _ = close(rotated)
    }
    if openCurrent() {
      var status = stat()
      if fstat(descriptor, &status) == 0 {
        offset = Int(status.st_size)
        lastSequence = TrafficJournal.lastSequence(descriptor: descriptor, size: offset) ?? lastSequence
      }
    }
    lastReturned = lastSequence
  }

  deinit {
    if descriptor >= 0 { _ = close(descriptor) }
  }

  /// The records appended since the last call, oldest first. When the journal cannot be read,
  /// returns what it could and sets ``problem``.
  ///
  /// A reader that falls more than one rotation behind has lost the generations in between
  /// (only one rotated file is kept); the gap shows in the sequence numbers.
  public func readAvailable() -> [TrafficRecord] {
    var records: [TrafficRecord] = []
    irregularities.removeAll()
    for _ in 0..<8 {
      if descriptor < 0 {
        // Before opening the current file, take what the rotated one holds that was not read:
        // after a rotation it is the generation we have not finished.
        drainRotatedGeneration(into: &records)
        if !openCurrent() { return records }
      }
      drain(into: &records)
      var named = stat()
      if lstat(path, &named) != 0 {
        // Rotated, the new file not there yet: keep reading this one until it appears. Deleted
        // (no link left; no appender writes to a file no longer named): let it go, which also
        // lets the directory be removed (an open file pins its directory).
        var opened = stat()
        if fstat(descriptor, &opened) == 0 && opened.st_nlink == 0 {
          remember(identity, offset)
          _ = close(descriptor)
          descriptor = -1
          pending.removeAll()
          skippingLine = false
          restartCount += 1
        }
        return records
      }
      if FileIdentity(named) == identity { return records }
      // Rotated, or replaced: what we drained was the old file's end; move on.
      remember(identity, offset)
      _ = close(descriptor)
      descriptor = -1
      pending.removeAll()
      skippingLine = false
      // A rotation leaves the old file as the rotated one; anything else is a replacement.
      var rotated = stat()
      if lstat(rotatedPath, &rotated) != 0 || FileIdentity(rotated) != identity { restartCount += 1 }
    }
    return records
  }

  private func remember(_ file: FileIdentity, _ offset: Int) {
    finished = (file, offset)
  }

  private func drainRotatedGeneration(into records: inout [TrafficRecord]) {
    guard let (rotated, status) = try? TrafficJournal.openJournal(rotatedPath, writable: false) else {
      return
    }
    defer { _ = close(rotated) }
    let file = FileIdentity(status)
    let size = Int(status.st_size)
    // A rotated file other than the one last finished, after reading another: the generations
    // between may be lost (or there were none; the numbers tell).
    mayHaveMissedGeneration = finished != nil && finished?.identity != file
    defer { mayHaveMissedGeneration = false }
    var start = finished.flatMap { $0.identity == file ? $0.offset : nil } ?? 0
    if start > size { start = 0 }  // truncated since
    guard start < size else { return }
    // Its own lines only: a partial line of the current file does not continue into it, and an
    // unterminated last line of its own is a torn write.
    let saved = (pending, skippingLine, pendingStart)
    pending = []
    skippingLine = false
    if size - start > Self.maximumBacklog {
      start = size - Self.maximumBacklog
      skippingLine = true
    }
    var position = start
    while position < size {
      let count = chunk.withUnsafeMutableBytes {
        pread(rotated, $0.baseAddress, min($0.count, size - position), off_t(position))
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      consume(chunk[0..<count], at: position, of: rotatedPath, into: &records)
      position += count
    }
    remember(file, position)
    (pending, skippingLine, pendingStart) = saved
  }

  /// Parses the complete lines in `bytes`, which start at byte `start` of the file at `path`.
  private func append(
    lines bytes: ArraySlice<UInt8>, at start: Int, of path: String, to records: inout [TrafficRecord]
  ) {
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
      guard let record = TrafficRecord(jsonLineBytes: line) else {
        skipped(at: start + line.startIndex - bytes.startIndex, of: path)
        continue
      }
      if let lastSequence, record.sequence <= lastSequence { restartCount += 1 }
      noteJump(to: record.sequence, in: path)
      lastSequence = record.sequence
      lastReturned = record.sequence
      skippedSinceLastRecord = 0
      records.append(record)
    }
  }

  /// Counts a skipped line, merged with the previous skip of the same read and file.
  private func skipped(at position: Int, of path: String) {
    skippedSinceLastRecord += 1
    if case .skippedLines(path, let first, let count)? = irregularities.last {
      irregularities[irregularities.count - 1] = .skippedLines(path: path, offset: first, count: count + 1)
    } else {
      irregularities.append(.skippedLines(path: path, offset: position, count: 1))
    }
  }

  /// Says how numbering went forward by more than one, when nothing skipped explains it.
  private func noteJump(to sequence: UInt64, in path: String) {
    guard let last = lastReturned, sequence > last + 1 else { return }
    let gap = sequence - last - 1
    if mayHaveMissedGeneration && gap <= TrafficJournalIrregularity.plausibleLoss {
      irregularities.append(.rotatedAway(path: path, after: last, before: sequence))
    } else if UInt64(skippedSinceLastRecord) < gap {
      irregularities.append(.sequenceJump(path: path, from: last, to: sequence))
    }
  }

  private func openCurrent() -> Bool {
    do {
      guard let (opened, status) = try TrafficJournal.openJournal(path, writable: false) else {
        problem = nil
        return false
      }
      problem = nil
      descriptor = opened
      identity = FileIdentity(status)
      // A new current file is read from its start: it is never one already read (an inode
      // number freed by a rotation is often given to the next file created). Its first number
      // is not compared with the old file's: a replacement was counted when it was seen.
      offset = 0
      lastSequence = nil
      return true
    } catch {
      problem = error
      return false
    }
  }

  private func drain(into records: inout [TrafficRecord]) {
    var status = stat()
    if fstat(descriptor, &status) == 0 && Int(status.st_size) < offset {
      // Truncated in place: start over.
      offset = 0
      lastSequence = nil
      pending.removeAll()
      skippingLine = false
      restartCount += 1
    }
    if offset == 0 && Int(status.st_size) > Self.maximumBacklog {
      offset = Int(status.st_size) - Self.maximumBacklog
      skippingLine = true
    }
    while true {
      let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return }
      consume(chunk[0..<count], at: offset, of: path, into: &records)
      offset += count
    }
  }

  /// Adds bytes to the partial line and returns the complete records, dropping any line longer
  /// than ``maximumLineLength`` (up to its newline, however far that is).
  /// `bytes` start at byte `position` of the file at `path`.
  private func consume(
    _ bytes: ArraySlice<UInt8>, at position: Int, of path: String, into records: inout [TrafficRecord]
  ) {
    var bytes = bytes
    if skippingLine {
      guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return }
      bytes = bytes[(newline + 1)...]
      skippingLine = false
    }
    if pending.isEmpty { pendingStart = position + (bytes.startIndex - 0) }
    pending.append(contentsOf: bytes)
    if let lastNewline = pending.lastIndex(of: UInt8(ascii: "\n")) {
      append(lines: pending[..<lastNewline], at: pendingStart, of: path, to: &records)
      pending.removeSubrange(...lastNewline)
      pendingStart += lastNewline + 1
    }
    if pending.count > Self.maximumLineLength {
      skipped(at: pendingStart, of: path)
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
/// writes in the same directory cost it nothing, and the directory for its own removal or
/// renaming (and for the journal's creation while it is missing: before the first post, or
/// between a rotation's rename and the new file).
///
/// What a reader of the output should know is reported as a ``TrafficJournalNotice``: a journal
/// that cannot be read (and when it can again), a restart of the journal, and a directory removed
/// or moved away (the follower then waits for a directory of that name to appear again and follows
/// it, or stops when even the parent directory is gone).
public final class TrafficJournalFollower: @unchecked Sendable {
  // After `init`, everything mutable is touched only by the follower thread.
  private let inotify: Inotify
  private let reader: TrafficJournalReader
  private let handler: @Sendable ([TrafficRecord]) -> Void
  private let notices: (@Sendable (TrafficJournalNotice) -> Void)?
  private let queue: DispatchQueue?
  private let directory: String
  private let journalPath: String
  private var watches: Watches
  private var reportedProblem: WormholeError?
  private var reportedRestarts = 0
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
    /// The parent directory's, while the directory is gone.
    var parent: Int32?
  }

  /// Starts following the journal in `directory` (which must exist). With `startingAtEnd`, only
  /// records appended from now on are delivered. The handler runs on the follower's own thread,
  /// one batch at a time, or on `queue` when one is given; so does `notices`.
  public convenience init(
    directory: String, startingAtEnd: Bool = true, queue: DispatchQueue? = nil,
    notices: (@Sendable (TrafficJournalNotice) -> Void)? = nil,
    handler: @escaping @Sendable ([TrafficRecord]) -> Void
  ) throws(WormholeError) {
    try FileSystem.checkDirectory(directory)
    try self.init(
      reader: TrafficJournalReader(directory: directory, startingAtEnd: startingAtEnd),
      deliverFirst: !startingAtEnd, queue: queue, notices: notices, handler: handler)
  }

  /// Continues from where `reader` is: everything appended after what it returned is delivered
  /// (what was appended meanwhile first). The reader is the follower's from then on.
  public convenience init(
    continuing reader: TrafficJournalReader, queue: DispatchQueue? = nil,
    notices: (@Sendable (TrafficJournalNotice) -> Void)? = nil,
    handler: @escaping @Sendable ([TrafficRecord]) -> Void
  ) throws(WormholeError) {
    try FileSystem.checkDirectory(reader.directory)
    try self.init(reader: reader, deliverFirst: true, queue: queue, notices: notices, handler: handler)
  }

  private init(
    reader: TrafficJournalReader, deliverFirst: Bool, queue: DispatchQueue?,
    notices: (@Sendable (TrafficJournalNotice) -> Void)?,
    handler: @escaping @Sendable ([TrafficRecord]) -> Void
  ) throws(WormholeError) {
    let directory = reader.directory
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
    self.notices = notices
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
    self.reader = reader
    self.reportedRestarts = reader.restartCount
    try start(deliverFirst: deliverFirst)
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
      if descriptors[0].revents != 0, box.follower?.wake() == false { return }
    }
  }

  /// Watches the directory itself (for its removal or renaming), and the journal file if it
  /// exists, else the directory for the journal's creation.
  private static func arm(_ watches: inout Watches, inotify: Inotify, directory: String, journalPath: String)
    throws(WormholeError)
  {
    let itself: InotifyMask = [.deleteSelf, .moveSelf, .onlyDirectory]
    func watchDirectory(_ mask: InotifyMask) throws(WormholeError) {
      do {
        // One watch per inode: adding again replaces the mask.
        watches.directory = try inotify.addWatch(directory, mask: mask)
      } catch {
        throw .containerUnavailable(path: directory, reason: error.description)
      }
    }
    for _ in 0..<3 {
      let watch: Int32
      do {
        watch = try inotify.addWatch(
          journalPath, mask: [.modify, .attributes, .moveSelf, .deleteSelf, .dontFollow])
      } catch  where error.code == ENOENT {
        try watchDirectory(itself.union([.create, .movedTo]))
        // The journal may have appeared between the two calls: try again, else wait for it.
        if FileSystem.status(journalPath) == nil { return }
        continue
      } catch {
        throw .containerUnavailable(path: directory, reason: error.description)
      }
      if let old = watches.file, old != watch { inotify.removeWatch(old) }
      watches.file = watch
      try watchDirectory(itself)
      return
    }
  }

  /// Handles one wake-up; `false` when following cannot go on.
  private func wake() -> Bool {
    guard let events = try? inotify.readEvents(), !events.isEmpty else { return true }
    var rearm = false
    var relevant = false
    var directoryGone = false
    var directoryBack = false
    let baseName = directory.split(separator: "/").last.map(String.init) ?? directory
    for event in events {
      if event.mask.contains(.queueOverflow) {
        relevant = true
        rearm = true
      } else if event.watch == watches.file {
        relevant = true
        // Unlinked (an attribute change: the deletion itself waits for the last descriptor,
        // the reader's own), moved or gone: watch whatever now has the name.
        if !event.mask.isDisjoint(with: [.attributes, .moveSelf, .deleteSelf, .ignored]) { rearm = true }
      } else if event.watch == watches.directory {
        if !event.mask.isDisjoint(with: [.deleteSelf, .moveSelf, .ignored]) {
          directoryGone = true
        } else if event.name == TrafficJournal.fileName {
          relevant = true
          rearm = true
        }
      } else if event.watch == watches.parent {
        if !event.mask.isDisjoint(with: [.deleteSelf, .moveSelf, .ignored]) {
          notify(.stopped(path: directory, reason: "its parent directory was removed or moved too"))
          return false
        }
        if event.name.utf8.elementsEqual(baseName.utf8) { directoryBack = true }
      }
    }
    if directoryGone && watches.parent == nil {
      // Drain what the old journal still holds, then wait for a directory of that name.
      deliver()
      for watch in [watches.file, watches.directory].compactMap({ $0 }) { inotify.removeWatch(watch) }
      watches.file = nil
      watches.directory = nil
      let parent = FileSystem.parentPath(of: directory)
      do {
        watches.parent = try inotify.addWatch(
          parent, mask: [.create, .movedTo, .deleteSelf, .moveSelf, .onlyDirectory])
      } catch {
        notify(.stopped(path: directory, reason: "its parent directory is gone too (\(error.description))"))
        return false
      }
      notify(.directoryRemoved(path: directory))
      directoryBack = FileSystem.status(directory) != nil
    }
    if directoryBack, watches.parent != nil {
      guard (try? Self.arm(&watches, inotify: inotify, directory: directory, journalPath: journalPath)) != nil
      else { return true }
      if let parent = watches.parent { inotify.removeWatch(parent) }
      watches.parent = nil
      notify(.directoryRecreated(path: directory))
      deliver()
      return true
    }
    guard relevant, watches.parent == nil else { return true }
    // Drain what the old file still holds before moving the watch to the new one.
    deliver()
    if rearm {
      try? Self.arm(&watches, inotify: inotify, directory: directory, journalPath: journalPath)
      deliver()
    }
    return true
  }

  private func notify(_ notice: TrafficJournalNotice) {
    guard let notices, !isCancelled else { return }
    if let queue {
      queue.async { [self] in
        if !isCancelled { notices(notice) }
      }
    } else {
      notices(notice)
    }
  }

  private func deliver() {
    guard !isCancelled else { return }
    let records = reader.readAvailable()
    if reader.problem != reportedProblem {
      reportedProblem = reader.problem
      notify(reportedProblem.map { .unusable($0) } ?? .usableAgain(path: journalPath))
    }
    if reader.restartCount != reportedRestarts {
      reportedRestarts = reader.restartCount
      notify(.restarted(path: journalPath))
    }
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

/// What a ``TrafficJournalFollower`` tells besides records.
public enum TrafficJournalNotice: Sendable, Equatable, CustomStringConvertible {
  /// The journal cannot be read (a link, FIFO, device, directory or a file without permission in
  /// its place); following goes on, and ``usableAgain(path:)`` says when it can be read again.
  case unusable(WormholeError)
  /// The journal at `path` can be read again.
  case usableAgain(path: String)
  /// The journal was truncated, replaced, or its numbering went back: it is read from its start.
  case restarted(path: String)
  /// The directory was removed or moved away; the follower waits for one of that name.
  case directoryRemoved(path: String)
  /// A directory of that name appeared again and is followed.
  case directoryRecreated(path: String)
  /// Following ended: the directory is gone and cannot be waited for.
  case stopped(path: String, reason: String)

  public var description: String {
    switch self {
    case .unusable(let error): return error.description
    case .usableAgain(let path): return "the traffic journal \(quoted(path)) can be read again"
    case .restarted(let path):
      return
        "the traffic journal \(quoted(path)) was truncated, replaced or renumbered; reading it from its start"
    case .directoryRemoved(let path):
      return "the wormhole directory \(quoted(path)) was removed or moved; waiting for it to be created again"
    case .directoryRecreated(let path):
      return "the wormhole directory \(quoted(path)) was created again; following it"
    case .stopped(let path, let reason):
      return "stopped following \(quoted(path)): \(reason)"
    }
  }
}
