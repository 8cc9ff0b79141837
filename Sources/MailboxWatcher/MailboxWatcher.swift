import Dispatch
import Glibc
import Inotify
import KeyedArchive
import MailboxModel
import Synchronization
import Wormhole
import WormholeVocabulary

/// A place to watch for wormhole directories.
public struct WatchRoot: Sendable, Hashable {
  /// How far below the root wormhole directories are looked for.
  public enum Kind: Sendable, Hashable {
    /// A directory and everything below it (a wormhole home, an application group): every
    /// directory holding mailboxes or a traffic journal is a wormhole directory.
    case tree
    /// One wormhole directory, even while it holds nothing; nothing below it is looked at.
    case container
  }

  /// The directory, as the bytes of its path (trailing slashes removed).
  public var path: FileName
  public var kind: Kind

  public init(path: FileName, kind: Kind) {
    var bytes = path.bytes
    while bytes.count > 1 && bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
    self.path = bytes.count == path.byteCount ? path : FileName(bytes: bytes)
    self.kind = kind
  }

  /// The root at `path`, whose bytes are its UTF-8.
  public init(path: String, kind: Kind) { self.init(path: FileName(path), kind: kind) }

  /// A wormhole home: every application group below `<home>/AppGroup`, found as they appear.
  public static func home(_ path: String) -> WatchRoot { WatchRoot(path: path, kind: .tree) }
  /// One application group's directory and the optional directories below it.
  public static func group(_ path: String) -> WatchRoot { WatchRoot(path: path, kind: .tree) }
  /// One directory that holds mailboxes.
  public static func container(_ path: String) -> WatchRoot { WatchRoot(path: path, kind: .container) }
}

/// Why watching could not start.
public enum WatcherError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A root does not exist, is not a directory or cannot be listed.
  case rootUnavailable(path: FileName, reason: String)
  /// inotify could not be initialized (the instance limit).
  case inotifyUnavailable(String)

  /// Names shown escaped for a terminal.
  public var description: String {
    switch self {
    case .rootUnavailable(let path, let reason): return "cannot watch \(path.displayField): \(reason)"
    case .inotifyUnavailable(let reason): return "cannot watch: \(reason)"
    }
  }
}

/// Watches wormhole directories below some roots and reports what it learns as ``ModelEvent``s:
/// the only code of the model that touches inotify.
///
/// Each directory below a root gets one watch. A burst is read whole and each touched mailbox
/// read once (coalescing), handed over in parts of ``burstPart`` mailboxes; journals are read
/// through ``TrafficJournalReader``, which follows rotation. A queue overflow makes it rescan
/// every directory, so the model ends consistent with the disk; directories it cannot watch (the
/// watch limit) are polled. Each followed journal
/// holds a file descriptor: past ``Configuration/maximumOpenJournals`` the others are opened,
/// read and closed whenever they change, so a home with thousands of groups never runs the
/// process out of descriptors. Paths and names are handled as bytes, valid UTF-8 or not.
///
/// Everything runs on the serial queue given; the handler is called there.
public final class MailboxWatcher: @unchecked Sendable {
  /// Tuning, mostly for tests and benchmarks.
  public struct Configuration: Sendable {
    /// Mailboxes larger than this are stated but their bytes not kept.
    public var maximumStoredBytes = 1 << 20
    /// How often directories that cannot be watched (and missing roots) are looked at, in seconds.
    public var pollInterval = 1.0
    /// How many directory levels below a tree root are searched.
    public var maximumDepth = 8
    /// Watches this watcher may add before it behaves as if the kernel's limit were reached;
    /// `nil` leaves the limit to the kernel. For tests of the polling fallback.
    public var maximumWatches: Int?
    /// Journals kept open between reads; the others are reopened whenever they change. `nil`
    /// takes half of the descriptors `ulimit -n` leaves after a reserve of 32.
    public var maximumOpenJournals: Int?

    public init() {}
  }

  private struct Directory {
    var path: FileName
    var depth: Int
    var watch: Int32?
    var isContainer: Bool
    var isWormhole = false
    /// The journal's reader, kept open, when the descriptor budget allowed it.
    var journal: TrafficJournalReader?
    /// For a journal read without keeping it open: its files' stamps at the last read, and the
    /// last sequence number returned.
    var journalStamps: [FileStamp?] = []
    var journalSequence: UInt64?
    /// Mailbox fingerprints by identifier.
    var stamps: [FileName: FileStamp] = [:]
    /// Why the directory cannot be listed, while it cannot.
    var error: String?
    /// Why its journal could not be read at the last attempt, as last reported.
    var journalProblem: String?
  }

  /// How many mailboxes of a burst are read before what was read so far is handed over.
  static let burstPart = 64
  /// From how many mailboxes of one directory in a burst the directory is opened once, and they
  /// relative to it.
  static let directoryOpeningCount = 4

  private static let mask: InotifyMask = [
    .closeWrite, .movedTo, .movedFrom, .delete, .create, .modify, .deleteSelf, .moveSelf, .onlyDirectory,
    .dontFollow, .excludeUnlinked,
  ]

  private let journalName = FileName(TrafficJournal.fileName)
  private let rotatedJournalName = FileName(TrafficJournal.rotatedFileName)
  private let roots: [WatchRoot]
  private let configuration: Configuration
  private let queue: DispatchQueue
  private let handler: @Sendable ([ModelEvent]) -> Void
  private let inotify: Inotify
  private let journalBudget: Int
  /// Waits for the instance to become readable (see ``InotifyReader``: no `DispatchSourceRead`).
  private var reader: InotifyReader?
  /// The readiness source used instead when no reader thread could be started.
  private var source: DispatchSourceRead?
  private var timer: DispatchSourceTimer?
  // Confined to `queue`.
  private var directories: [FileName: Directory] = [:]
  private var pathsByWatch: [Int32: FileName] = [:]
  private var watchCount = 0
  private var openJournals = 0
  private var saidDescriptorNotice = false
  private var polled: Set<FileName> = []
  private var isCancelled = false

  /// A watcher of `roots` that calls `handler` with batches of events on `queue` (serial).
  /// Nothing is read until ``start()``.
  public init(
    roots: [WatchRoot], configuration: Configuration = Configuration(), queue: DispatchQueue,
    handler: @escaping @Sendable ([ModelEvent]) -> Void
  ) throws(WatcherError) {
    for root in roots {
      var status = stat()
      guard DirectoryScanner.withCString(root.path, { stat($0, &status) }) == 0 else {
        throw .rootUnavailable(path: root.path, reason: String(cString: strerror(errno)))
      }
      guard status.st_mode & S_IFMT == S_IFDIR else {
        throw .rootUnavailable(path: root.path, reason: "it is not a directory")
      }
      // A root that cannot be listed shows nothing at all: refuse it rather than print an
      // empty model.
      guard let stream = DirectoryScanner.withCString(root.path, { opendir($0) }) else {
        throw .rootUnavailable(path: root.path, reason: "cannot list it: \(String(cString: strerror(errno)))")
      }
      closedir(stream)
    }
    do {
      inotify = try Inotify()
    } catch {
      throw .inotifyUnavailable(error.description)
    }
    self.roots = roots
    self.configuration = configuration
    self.queue = queue
    self.handler = handler
    if let maximum = configuration.maximumOpenJournals {
      journalBudget = max(maximum, 0)
    } else {
      var limit = rlimit()
      let soft =
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0
        ? Int(clamping: limit.rlim_cur) : 1_024
      journalBudget = max(soft - 32, 0) / 2
    }
  }

  deinit {
    reader?.stop()
    source?.cancel()
    timer?.cancel()
  }

  /// Finds every wormhole directory below the roots, reports what they hold (with
  /// ``ModelEvent/directoryScanned(_:mailboxes:initial:)`` marked initial, and their retained
  /// journals), then follows changes. Call it on the watcher's queue.
  public func start() {
    dispatchPrecondition(condition: .onQueue(queue))
    // The reader and the timer first: they take descriptors of their own (a wake pipe; Dispatch's
    // for the timer), and must find some free. Their reads run on this queue, after this returns.
    let reader = InotifyReader(inotify: inotify, queue: queue) { [weak self] in
      guard let self else { return false }
      return self.readQueuedEvents()
    }
    if let reader, reader.start() {
      self.reader = reader
    } else {
      // No thread or no pipe to be had: Dispatch's readiness source, woken at each event.
      let source = DispatchSource.makeReadSource(fileDescriptor: inotify.fileDescriptor, queue: queue)
      source.setEventHandler { [weak self] in self?.readQueuedEvents() }
      source.activate()
      self.source = source
    }
    let timer = DispatchSource.makeTimerSource(queue: queue)
    let interval = max(configuration.pollInterval, 0.01)
    timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
    timer.setEventHandler { [weak self] in self?.poll() }
    timer.activate()
    self.timer = timer
    var events: [ModelEvent] = []
    for root in roots {
      discover(root.path, depth: 0, isContainer: root.kind == .container, initial: true, into: &events)
    }
    deliver(events)
  }

  /// Stops watching; no handler call starts after this returns. Call it off the watcher's queue.
  public func cancel() {
    queue.sync {
      isCancelled = true
      reader?.stop()
      source?.cancel()
      timer?.cancel()
    }
  }

  /// Stops the reader (or readiness source) and the poll timer without waiting for the queue,
  /// from any thread (they are set once, in ``start()``). A handler call already running finishes.
  func stopSources() {
    reader?.stop()
    source?.cancel()
    timer?.cancel()
  }

  // MARK: Discovery

  /// Watches `path`, lists it, reports it when it is a wormhole directory, and descends. A
  /// directory that exists but cannot be listed is reported with its error and polled.
  private func discover(
    _ path: FileName, depth: Int, isContainer: Bool, initial: Bool, into events: inout [ModelEvent]
  ) {
    guard directories[path] == nil else { return }
    var directory = Directory(path: path, depth: depth, isContainer: isContainer)
    // Watch before listing, so that nothing changing in between is missed.
    directory.watch = addWatch(path, into: &events)
    let listing: DirectoryListing
    switch DirectoryScanner.list(path) {
    case .success(let listed):
      listing = listed
    case .failure(let error):
      guard error.code != ENOENT && error.code != ENOTDIR else {
        if let watch = directory.watch { removeWatch(watch) }
        return
      }
      // There but unreadable: shown with its error, and looked at again at every poll.
      directory.error = "cannot list it: \(error.message)"
      directories[path] = directory
      polled.insert(path)
      becomeWormhole(path, listing: nil, initial: initial, into: &events)
      if let message = directories[path]?.error { events.append(.directoryError(path, message)) }
      return
    }
    directories[path] = directory
    if directory.watch == nil { polled.insert(path) }
    if isContainer || !listing.mailboxes.isEmpty || listing.hasJournal {
      becomeWormhole(path, listing: listing, initial: initial, into: &events)
    }
    guard !isContainer, depth < configuration.maximumDepth else { return }
    for name in listing.subdirectories {
      discover(path.appending(name), depth: depth + 1, isContainer: false, initial: initial, into: &events)
    }
  }

  private func becomeWormhole(
    _ path: FileName, listing: DirectoryListing?, initial: Bool, into events: inout [ModelEvent]
  ) {
    guard var directory = directories[path], !directory.isWormhole else { return }
    directory.isWormhole = true
    events.append(.directoryAppeared(path))
    if directory.watch == nil && directory.error == nil {
      events.append(.watchLimitReached(directory: path, message: limitMessage))
    }
    var observations: [FileName: MailboxObservation] = [:]
    observations.reserveCapacity(listing?.mailboxes.count ?? 0)
    directory.stamps.reserveCapacity(listing?.mailboxes.count ?? 0)
    let limit = configuration.maximumStoredBytes
    for (identifier, observation, stamp) in Self.observeAll(listing?.mailboxes ?? [], in: path, limit: limit)
    {
      observations[identifier] = observation
      directory.stamps[identifier] = stamp
    }
    events.append(.directoryScanned(path, mailboxes: observations, initial: initial))
    directories[path] = directory
    guard directory.error == nil else { return }
    guard let text = path.string else {
      var status = stat()
      let journal = path.appending(FileName(TrafficJournal.fileName))
      guard DirectoryScanner.withCString(journal, { lstat($0, &status) }) == 0 else { return }
      events.append(
        .notice(
          "\(path.lossyText): its traffic journal is not read (the directory's name is not valid UTF-8); its mailboxes are"
        ))
      return
    }
    if let reader = openJournal(text, into: &events) {
      directories[path]?.journal = reader
      let records = reader.readAvailable()
      if !records.isEmpty { events.append(.journalRecords(directory: path, records, initial: initial)) }
      reportJournalProblem(path, reader, into: &events)
    } else {
      readClosedJournal(path, initial: initial, into: &events)
    }
  }

  /// A reader that keeps the journal in `directory` open, when the descriptor budget allows;
  /// otherwise `nil`, and a notice the first time.
  private func openJournal(_ directory: String, into events: inout [ModelEvent]) -> TrafficJournalReader? {
    guard openJournals < journalBudget else {
      if !saidDescriptorNotice {
        saidDescriptorNotice = true
        events.append(.notice(descriptorMessage))
      }
      return nil
    }
    openJournals += 1
    return TrafficJournalReader(directory: directory, startingAtEnd: false)
  }

  private var descriptorMessage: String {
    "too many wormhole directories to keep every traffic journal open (\(journalBudget) kept open for the open-file limit, ulimit -n): the others are reopened and read whenever they change"
  }

  /// The fewest mailboxes of a directory read on every core at once (``observeAll(_:in:limit:)``).
  static let parallelReadThreshold = 512

  /// Reads (and summarizes) the mailboxes `identifiers` of `directory`, in their order: each
  /// still there, a regular file or said as what it is instead. A directory of at least ``parallelReadThreshold``
  /// (the start-up scan of a large app group) is read in parts on every core at once: decoding
  /// each archive for its summary is most of the work, and the parts share nothing.
  static func observeAll(
    _ identifiers: [FileName], in directory: FileName, limit: Int
  ) -> [(FileName, MailboxObservation, FileStamp?)] {
    @Sendable func read(_ slice: ArraySlice<FileName>) -> [(FileName, MailboxObservation, FileStamp?)] {
      slice.compactMap { identifier in
        DirectoryScanner.observe(directory: directory, identifier: identifier, limit: limit).map {
          (identifier, $0.0.summarized, $0.1)
        }
      }
    }
    let cores = min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), 8)
    guard identifiers.count >= parallelReadThreshold, cores > 1 else { return read(identifiers[...]) }
    let partSize = (identifiers.count + cores - 1) / cores
    let parts = Mutex([[(FileName, MailboxObservation, FileStamp?)]](repeating: [], count: cores))
    DispatchQueue.concurrentPerform(iterations: cores) { part in
      let start = part * partSize
      let end = min(start + partSize, identifiers.count)
      guard start < end else { return }
      let observed = read(identifiers[start..<end])
      parts.withLock { $0[part] = observed }
    }
    return parts.withLock { $0.flatMap { $0 } }
  }

  /// Reads one mailbox, and summarizes its message here, off the dashboard's loop.
  private func observe(
    _ directory: FileName, _ identifier: FileName, directoryDescriptor: Int32? = nil
  ) -> (MailboxObservation, FileStamp?)? {
    DirectoryScanner.observe(
      directory: directory, identifier: identifier, limit: configuration.maximumStoredBytes,
      directoryDescriptor: directoryDescriptor
    ).map { ($0.0.summarized, $0.1) }
  }

  private func addWatch(_ path: FileName, into events: inout [ModelEvent]) -> Int32? {
    do throws(InotifyError) {
      if let maximum = configuration.maximumWatches, watchCount >= maximum {
        throw InotifyError(operation: "inotify_add_watch", path: path.lossyText, code: ENOSPC)
      }
      let watch: Int32
      if let text = path.string {
        watch = try inotify.addWatch(text, mask: Self.mask)
      } else {
        // A name that is not UTF-8 cannot go through the String API: watch the directory
        // through a descriptor opened by its bytes (a magic link, so the mask must follow it).
        let descriptor = DirectoryScanner.withCString(path) {
          open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard descriptor >= 0 else { return nil }
        defer { _ = close(descriptor) }
        var mask = Self.mask
        mask.remove(.dontFollow)
        watch = try inotify.addWatch("/proc/self/fd/\(descriptor)", mask: mask)
      }
      pathsByWatch[watch] = path
      watchCount += 1
      return watch
    } catch {
      guard error.isLimitReached else { return nil }
      events.append(.watchLimitReached(directory: path, message: limitMessage))
      return nil
    }
  }

  private var limitMessage: String {
    "the inotify watch limit is reached (raise fs.inotify.max_user_watches): directories that cannot be watched are polled every \(configuration.pollInterval) s"
  }

  private func removeWatch(_ watch: Int32) {
    guard pathsByWatch.removeValue(forKey: watch) != nil else { return }
    inotify.removeWatch(watch)
    watchCount -= 1
  }

  /// Forgets `path` and everything below it; reports the wormhole directories among them.
  private func vanish(_ path: FileName, into events: inout [ModelEvent]) {
    let prefix = path.bytes + [UInt8(ascii: "/")]
    for candidate in directories.keys.sorted()
    where candidate == path || candidate.withBytes({ $0.starts(with: prefix) }) {
      guard let directory = directories.removeValue(forKey: candidate) else { continue }
      if let watch = directory.watch { removeWatch(watch) }
      if directory.journal != nil { openJournals -= 1 }
      polled.remove(candidate)
      if directory.isWormhole { events.append(.directoryVanished(candidate)) }
    }
  }

  // MARK: Events

  /// Reads and handles what the instance queued; whether to go on reading (not once cancelled,
  /// or when the instance cannot be read).
  @discardableResult
  private func readQueuedEvents() -> Bool {
    guard !isCancelled else { return false }
    let events: [InotifyEvent]
    do {
      events = try inotify.readEvents()
    } catch {
      // Never expected (the instance is open and the buffer fits any event), but not silent:
      // the reader ends, and the operator is told that changes are no longer followed.
      deliver([
        .notice(
          "the watcher cannot read its inotify events (\(DisplayText.escaped(error.description))): "
            + "changes are no longer followed; restart to follow them again")
      ])
      return false
    }
    if !events.isEmpty { handle(events) }
    return true
  }

  /// Turns one burst of inotify events into model events: each touched mailbox is read once, and
  /// handed over with the others of its part of ``burstPart``.
  /// Internal so that tests can feed events, such as an overflow, directly.
  func handle(_ inotifyEvents: [InotifyEvent]) {
    dispatchPrecondition(condition: .onQueue(queue))
    var touched: [FileName: Set<FileName>] = [:]
    var journals: Set<FileName> = []
    var gone: [FileName] = []
    var appeared: [(parent: FileName, child: FileName)] = []
    // Directories with an event for a name that is not valid UTF-8: inotify's names arrive
    // decoded (undecodable bytes as U+FFFD), so the directory is listed again instead.
    var relist: Set<FileName> = []
    var overflowed = false
    for event in inotifyEvents {
      if event.mask.contains(.queueOverflow) {
        overflowed = true
        continue
      }
      guard let path = pathsByWatch[event.watch] else { continue }
      if !event.mask.isDisjoint(with: [.deleteSelf, .moveSelf, .ignored]) {
        // Roots have no parent watch to report them: their own watch does.
        gone.append(path)
        continue
      }
      if event.name.unicodeScalars.contains("\u{FFFD}") {
        relist.insert(path)
        continue
      }
      let name = FileName(event.name)
      if event.mask.contains(.isDirectory) {
        let child = path.appending(name)
        if !event.mask.isDisjoint(with: [.create, .movedTo]) { appeared.append((path, child)) }
        if !event.mask.isDisjoint(with: [.delete, .movedFrom]) { gone.append(child) }
        continue
      }
      if name == journalName || name == rotatedJournalName {
        journals.insert(path)
      } else if let identifier = DirectoryScanner.identifier(ofFileName: name),
        !event.mask.isDisjoint(with: [.closeWrite, .movedTo, .movedFrom, .delete, .create])
      {
        // A create only matters for links and hard links (a writer's close comes later), but
        // reading an empty new file costs little and the close re-reads it.
        if event.mask == .create { continue }
        touched[path, default: []].insert(identifier)
      }
    }
    var events: [ModelEvent] = []
    for path in gone { vanish(path, into: &events) }
    for (parent, path) in appeared where directories[path] == nil {
      guard let parentDirectory = directories[parent], !parentDirectory.isContainer,
        parentDirectory.depth < configuration.maximumDepth
      else { continue }
      discover(path, depth: parentDirectory.depth + 1, isContainer: false, initial: false, into: &events)
    }
    if overflowed {
      rescanEverything(into: &events)
    } else {
      var refreshed = 0
      for (path, identifiers) in touched.sorted(by: { $0.key < $1.key }) where !relist.contains(path) {
        // Many mailboxes of one directory are opened relative to it: its path is walked once.
        let directoryDescriptor =
          identifiers.count >= Self.directoryOpeningCount
          ? DirectoryScanner.withCString(path) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } : -1
        defer { if directoryDescriptor >= 0 { _ = close(directoryDescriptor) } }
        for identifier in identifiers.sorted() {
          refresh(
            path, identifier, directoryDescriptor: directoryDescriptor >= 0 ? directoryDescriptor : nil,
            into: &events)
          refreshed += 1
          // A long burst is handed over in parts, so that whoever consumes it (the bridge
          // publishing to a broker) starts on the first while the rest is read.
          if refreshed % Self.burstPart == 0 {
            deliver(events)
            events.removeAll(keepingCapacity: true)
          }
        }
      }
      for path in relist.sorted() { rescan(path, into: &events) }
      for path in journals.sorted() where !relist.contains(path) { readJournal(path, into: &events) }
    }
    deliver(events)
  }

  /// Reads one mailbox again (relative to `directoryDescriptor`, `path` opened, when given) and
  /// reports it changed or removed.
  private func refresh(
    _ path: FileName, _ identifier: FileName, directoryDescriptor: Int32? = nil,
    into events: inout [ModelEvent]
  ) {
    guard directories[path] != nil else { return }
    if directories[path]?.isWormhole == false {
      becomeWormhole(path, listing: nil, initial: false, into: &events)
    }
    if let (observation, stamp) = observe(path, identifier, directoryDescriptor: directoryDescriptor) {
      directories[path]?.stamps[identifier] = stamp
      events.append(.mailboxChanged(directory: path, identifier: identifier, observation))
    } else {
      guard directories[path]?.stamps.removeValue(forKey: identifier) != nil else { return }
      events.append(.mailboxRemoved(directory: path, identifier: identifier))
    }
  }

  private func readJournal(_ path: FileName, into events: inout [ModelEvent]) {
    guard let directory = directories[path] else { return }
    if !directory.isWormhole { becomeWormhole(path, listing: nil, initial: false, into: &events) }
    if let reader = directories[path]?.journal {
      let records = reader.readAvailable()
      if !records.isEmpty { events.append(.journalRecords(directory: path, records, initial: false)) }
      reportJournalProblem(path, reader, into: &events)
    } else if directories[path]?.error == nil {
      readClosedJournal(path, initial: false, into: &events)
    }
  }

  /// What the last read of a journal found besides records, as notices: lines skipped, numbering
  /// that jumped, records rotated away unread (each said as what happened, by the reader that saw
  /// it); and a journal replaced by a FIFO, a device, a link or an unreadable file, said once, again
  /// only when what is wrong changes, and ended by a notice when it can be read again.
  private func reportJournalProblem(
    _ path: FileName, _ reader: TrafficJournalReader, into events: inout [ModelEvent]
  ) {
    for irregularity in reader.irregularities { events.append(.notice(irregularity.description)) }
    let problem = reader.problem?.description
    guard problem != directories[path]?.journalProblem else { return }
    let hadProblem = directories[path]?.journalProblem != nil
    directories[path]?.journalProblem = problem
    if let problem {
      events.append(
        .notice("the traffic journal of \(path.displayField) cannot be read: \(DisplayText.escaped(problem))")
      )
    } else if hadProblem {
      events.append(.notice(Self.journalReadableAgain(path)))
    }
  }

  /// The notice that ends "the traffic journal of … cannot be read".
  static func journalReadableAgain(_ path: FileName) -> String {
    "the traffic journal of \(path.displayField) can be read again"
  }

  /// Reads a journal that is not kept open, when its files changed since the last read: opened,
  /// read from the start, closed; only records newer than the last one returned are reported.
  private func readClosedJournal(_ path: FileName, initial: Bool, into events: inout [ModelEvent]) {
    guard let text = path.string, let directory = directories[path] else { return }
    let stamps = [TrafficJournal.fileName, TrafficJournal.rotatedFileName].map {
      DirectoryScanner.stamp(of: text + "/" + $0)
    }
    guard stamps != directory.journalStamps else { return }
    directories[path]?.journalStamps = stamps
    let last = directory.journalSequence
    let reader = TrafficJournalReader(directory: text, startingAtEnd: false)
    let records = reader.readAvailable().filter { last == nil || $0.sequence > last ?? 0 }
    guard let newest = records.last else { return }
    directories[path]?.journalSequence = newest.sequence
    events.append(.journalRecords(directory: path, records, initial: initial))
    // Read from its start every time: only what lies among the new records is new. (Skipped lines
    // carry no number to tell, and are said only for journals kept open.)
    for irregularity in reader.irregularities {
      switch irregularity {
      case .sequenceJump(_, _, let to) where last.map({ to > $0 }) ?? true,
        .rotatedAway(_, _, let to) where last.map({ to > $0 }) ?? true:
        events.append(.notice(irregularity.description))
      default: break
      }
    }
  }

  /// After an overflow: every directory is listed again and compared with what was known, so
  /// that the model ends consistent with the disk whatever events were lost.
  private func rescanEverything(into events: inout [ModelEvent]) {
    for path in directories.keys.sorted() { rescan(path, into: &events) }
    for root in roots where directories[root.path] == nil {
      discover(root.path, depth: 0, isContainer: root.kind == .container, initial: false, into: &events)
    }
  }

  /// Lists `path` again: new subdirectories are discovered, and mailboxes whose stamp changed
  /// are read, new ones reported, missing ones removed; then the journal is read.
  private func rescan(_ path: FileName, into events: inout [ModelEvent]) {
    guard let directory = directories[path] else { return }
    let listing: DirectoryListing
    switch DirectoryScanner.list(path) {
    case .success(let listed):
      listing = listed
      if directory.error != nil {
        directories[path]?.error = nil
        events.append(.directoryError(path, nil))
        // It could not be watched while it could not be read.
        if directory.watch == nil, let watch = addWatch(path, into: &events) {
          directories[path]?.watch = watch
        }
        if directories[path]?.watch != nil { polled.remove(path) }
        if let text = path.string, directory.journal == nil, directory.journalStamps.isEmpty,
          let reader = openJournal(text, into: &events)
        {
          directories[path]?.journal = reader
        }
      }
    case .failure(let error):
      guard error.code != ENOENT && error.code != ENOTDIR else {
        vanish(path, into: &events)
        return
      }
      let message = "cannot list it: \(error.message)"
      if directory.error != message {
        directories[path]?.error = message
        polled.insert(path)
        if !directory.isWormhole { becomeWormhole(path, listing: nil, initial: false, into: &events) }
        events.append(.directoryError(path, message))
      }
      return
    }
    if !directory.isContainer && directory.depth < configuration.maximumDepth {
      for name in listing.subdirectories where directories[path.appending(name)] == nil {
        discover(
          path.appending(name), depth: directory.depth + 1, isContainer: false, initial: false, into: &events)
      }
    }
    if directories[path]?.isWormhole != true {
      guard !listing.mailboxes.isEmpty || listing.hasJournal else { return }
      becomeWormhole(path, listing: listing, initial: false, into: &events)
      readJournal(path, into: &events)
      return
    }
    var present = Set<FileName>()
    for identifier in listing.mailboxes {
      present.insert(identifier)
      let known = directories[path]?.stamps[identifier]
      if let known, DirectoryScanner.stamp(directory: path, identifier: identifier) == known { continue }
      if let (observation, stamp) = observe(path, identifier) {
        directories[path]?.stamps[identifier] = stamp
        events.append(.mailboxChanged(directory: path, identifier: identifier, observation))
      }
    }
    for identifier in (directories[path]?.stamps.keys).map(Array.init) ?? []
    where !present.contains(identifier) {
      directories[path]?.stamps[identifier] = nil
      events.append(.mailboxRemoved(directory: path, identifier: identifier))
    }
    readJournal(path, into: &events)
  }

  /// Looks at the directories that cannot be watched, and for roots that were removed.
  private func poll() {
    guard !isCancelled else { return }
    var events: [ModelEvent] = []
    for path in polled.sorted() { rescan(path, into: &events) }
    for root in roots where directories[root.path] == nil {
      discover(root.path, depth: 0, isContainer: root.kind == .container, initial: false, into: &events)
    }
    deliver(events)
  }

  private func deliver(_ events: [ModelEvent]) {
    guard !events.isEmpty, !isCancelled else { return }
    handler(events)
  }

  /// Lists every directory again and reports every difference from what was known, as after a
  /// queue overflow: for a consumer that dropped events (a dashboard frozen too long).
  public func rescan() {
    queue.async { [weak self] in
      guard let self, !self.isCancelled else { return }
      var events: [ModelEvent] = []
      self.rescanEverything(into: &events)
      self.deliver(events)
    }
  }
}
