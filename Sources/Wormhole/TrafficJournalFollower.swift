import Dispatch
import Glibc
import Inotify
import Synchronization
import SystemThreads

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
    switch SystemThread.start({ Self.run(box) }) {
    case .success(let thread):
      state.withLock { $0.thread = thread }
    case .failure(let failure):
      // `deinit` closes the descriptors (every property is set, so it runs).
      throw .containerUnavailable(path: directory, reason: "cannot start a thread: \(failure.message)")
    }
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
    for irregularity in reader.irregularities { notify(.irregular(irregularity)) }
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
