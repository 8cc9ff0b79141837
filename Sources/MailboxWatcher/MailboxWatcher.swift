import Dispatch
import Glibc
import Inotify
import MailboxModel
import Wormhole

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

  public var path: String
  public var kind: Kind

  public init(path: String, kind: Kind) {
    var trimmed = path
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
    self.path = trimmed
    self.kind = kind
  }

  /// A wormhole home: every application group below `<home>/AppGroup`, found as they appear.
  public static func home(_ path: String) -> WatchRoot { WatchRoot(path: path, kind: .tree) }
  /// One application group's directory and the optional directories below it.
  public static func group(_ path: String) -> WatchRoot { WatchRoot(path: path, kind: .tree) }
  /// One directory that holds mailboxes.
  public static func container(_ path: String) -> WatchRoot { WatchRoot(path: path, kind: .container) }
}

/// Why watching could not start.
public enum WatcherError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A root does not exist or is not a directory.
  case rootUnavailable(path: String, reason: String)
  /// inotify could not be initialized (the instance limit).
  case inotifyUnavailable(String)

  public var description: String {
    switch self {
    case .rootUnavailable(let path, let reason): return "cannot watch \(path): \(reason)"
    case .inotifyUnavailable(let reason): return "cannot watch: \(reason)"
    }
  }
}

/// Watches wormhole directories below some roots and reports what it learns as ``ModelEvent``s:
/// the only code of the model that touches inotify.
///
/// Each directory below a root gets one watch. A burst is read whole and each touched mailbox
/// read once (coalescing); journals are read through ``TrafficJournalReader``, which follows
/// rotation. A queue overflow makes it rescan every directory, so the model ends consistent with
/// the disk; directories it cannot watch (the watch limit) are polled.
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

    public init() {}
  }

  private struct Directory {
    var path: String
    var depth: Int
    var watch: Int32?
    var isContainer: Bool
    var isWormhole = false
    var journal: TrafficJournalReader?
    var stamps: [String: FileStamp] = [:]
  }

  private static let mask: InotifyMask = [
    .closeWrite, .movedTo, .movedFrom, .delete, .create, .modify, .deleteSelf, .moveSelf, .onlyDirectory,
    .dontFollow, .excludeUnlinked,
  ]

  private let roots: [WatchRoot]
  private let configuration: Configuration
  private let queue: DispatchQueue
  private let handler: @Sendable ([ModelEvent]) -> Void
  private let inotify: Inotify
  private var source: DispatchSourceRead?
  private var timer: DispatchSourceTimer?
  // Confined to `queue`.
  private var directories: [String: Directory] = [:]
  private var pathsByWatch: [Int32: String] = [:]
  private var watchCount = 0
  private var polled: Set<String> = []
  private var isCancelled = false

  /// A watcher of `roots` that calls `handler` with batches of events on `queue` (serial).
  /// Nothing is read until ``start()``.
  public init(
    roots: [WatchRoot], configuration: Configuration = Configuration(), queue: DispatchQueue,
    handler: @escaping @Sendable ([ModelEvent]) -> Void
  ) throws(WatcherError) {
    for root in roots {
      var status = stat()
      guard stat(root.path, &status) == 0 else {
        throw .rootUnavailable(path: root.path, reason: String(cString: strerror(errno)))
      }
      guard status.st_mode & S_IFMT == S_IFDIR else {
        throw .rootUnavailable(path: root.path, reason: "it is not a directory")
      }
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
  }

  deinit {
    source?.cancel()
    timer?.cancel()
  }

  /// Finds every wormhole directory below the roots, reports what they hold (with
  /// ``ModelEvent/directoryScanned(_:mailboxes:initial:)`` marked initial, and their retained
  /// journals), then follows changes. Call it on the watcher's queue.
  public func start() {
    dispatchPrecondition(condition: .onQueue(queue))
    var events: [ModelEvent] = []
    for root in roots {
      discover(root.path, depth: 0, isContainer: root.kind == .container, initial: true, into: &events)
    }
    deliver(events)
    let source = DispatchSource.makeReadSource(fileDescriptor: inotify.fileDescriptor, queue: queue)
    source.setEventHandler { [weak self] in self?.readQueuedEvents() }
    source.activate()
    self.source = source
    let timer = DispatchSource.makeTimerSource(queue: queue)
    let interval = max(configuration.pollInterval, 0.01)
    timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
    timer.setEventHandler { [weak self] in self?.poll() }
    timer.activate()
    self.timer = timer
  }

  /// Stops watching; no handler call starts after this returns. Call it off the watcher's queue.
  public func cancel() {
    queue.sync {
      isCancelled = true
      source?.cancel()
      timer?.cancel()
    }
  }

  /// Stops the readiness source and the poll timer without waiting for the queue, from any
  /// thread (the sources are set once, in ``start()``). A handler call already running finishes.
  func stopSources() {
    source?.cancel()
    timer?.cancel()
  }

  // MARK: Discovery

  /// Watches `path`, lists it, reports it when it is a wormhole directory, and descends.
  private func discover(
    _ path: String, depth: Int, isContainer: Bool, initial: Bool, into events: inout [ModelEvent]
  ) {
    guard directories[path] == nil else { return }
    var directory = Directory(path: path, depth: depth, isContainer: isContainer)
    // Watch before listing, so that nothing changing in between is missed.
    directory.watch = addWatch(path, into: &events)
    guard case .success(let listing) = DirectoryScanner.list(path) else {
      if let watch = directory.watch { removeWatch(watch) }
      return
    }
    directories[path] = directory
    if directory.watch == nil { polled.insert(path) }
    if isContainer || !listing.mailboxes.isEmpty || listing.hasJournal {
      becomeWormhole(path, listing: listing, initial: initial, into: &events)
    }
    guard !isContainer, depth < configuration.maximumDepth else { return }
    for name in listing.subdirectories {
      discover(path + "/" + name, depth: depth + 1, isContainer: false, initial: initial, into: &events)
    }
  }

  private func becomeWormhole(
    _ path: String, listing: DirectoryListing?, initial: Bool, into events: inout [ModelEvent]
  ) {
    guard var directory = directories[path], !directory.isWormhole else { return }
    directory.isWormhole = true
    events.append(.directoryAppeared(path))
    if directory.watch == nil { events.append(.watchLimitReached(directory: path, message: limitMessage)) }
    var observations: [String: MailboxObservation] = [:]
    observations.reserveCapacity(listing?.mailboxes.count ?? 0)
    directory.stamps.reserveCapacity(listing?.mailboxes.count ?? 0)
    for (name, identifier) in listing?.mailboxes ?? [] {
      guard let (observation, stamp) = observe(path, name) else { continue }
      observations[identifier] = observation
      directory.stamps[name] = stamp
    }
    events.append(.directoryScanned(path, mailboxes: observations, initial: initial))
    let reader = TrafficJournalReader(directory: path, startingAtEnd: false)
    directory.journal = reader
    directories[path] = directory
    let records = reader.readAvailable()
    if !records.isEmpty { events.append(.journalRecords(directory: path, records, initial: initial)) }
  }

  private func observe(_ directory: String, _ name: String) -> (MailboxObservation, FileStamp?)? {
    DirectoryScanner.observe(directory: directory, name: name, limit: configuration.maximumStoredBytes)
  }

  private func addWatch(_ path: String, into events: inout [ModelEvent]) -> Int32? {
    do throws(InotifyError) {
      if let maximum = configuration.maximumWatches, watchCount >= maximum {
        throw InotifyError(operation: "inotify_add_watch", path: path, code: ENOSPC)
      }
      let watch = try inotify.addWatch(path, mask: Self.mask)
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
  private func vanish(_ path: String, into events: inout [ModelEvent]) {
    let prefix = path + "/"
    for candidate in directories.keys.sorted() where candidate == path || candidate.hasPrefix(prefix) {
      guard let directory = directories.removeValue(forKey: candidate) else { continue }
      if let watch = directory.watch { removeWatch(watch) }
      polled.remove(candidate)
      if directory.isWormhole { events.append(.directoryVanished(candidate)) }
    }
  }

  // MARK: Events

  private func readQueuedEvents() {
    guard !isCancelled else { return }
    let events: [InotifyEvent]
    do {
      events = try inotify.readEvents()
    } catch {
      return
    }
    if !events.isEmpty { handle(events) }
  }

  /// Turns one burst of inotify events into model events: each touched mailbox is read once.
  /// Internal so that tests can feed events, such as an overflow, directly.
  func handle(_ inotifyEvents: [InotifyEvent]) {
    dispatchPrecondition(condition: .onQueue(queue))
    var touched: [String: Set<String>] = [:]
    var journals: Set<String> = []
    var gone: [String] = []
    var appeared: [String] = []
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
      if event.mask.contains(.isDirectory) {
        let child = path + "/" + event.name
        if !event.mask.isDisjoint(with: [.create, .movedTo]) { appeared.append(child) }
        if !event.mask.isDisjoint(with: [.delete, .movedFrom]) { gone.append(child) }
        continue
      }
      if event.name == TrafficJournal.fileName || event.name == TrafficJournal.rotatedFileName {
        journals.insert(path)
      } else if MessageIdentifier.identifier(fromFileName: event.name) != nil,
        !event.mask.isDisjoint(with: [.closeWrite, .movedTo, .movedFrom, .delete, .create])
      {
        // A create only matters for links and hard links (a writer's close comes later), but
        // reading an empty new file costs little and the close re-reads it.
        if event.mask == .create { continue }
        touched[path, default: []].insert(event.name)
      }
    }
    var events: [ModelEvent] = []
    for path in gone { vanish(path, into: &events) }
    for path in appeared where directories[path] == nil {
      let parent = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
      guard let parentDirectory = directories[parent], !parentDirectory.isContainer,
        parentDirectory.depth < configuration.maximumDepth
      else { continue }
      discover(path, depth: parentDirectory.depth + 1, isContainer: false, initial: false, into: &events)
    }
    if overflowed {
      rescanEverything(into: &events)
    } else {
      for (path, names) in touched.sorted(by: { $0.key < $1.key }) {
        for name in names.sorted() { refresh(path, name, into: &events) }
      }
      for path in journals.sorted() { readJournal(path, into: &events) }
    }
    deliver(events)
  }

  /// Reads one mailbox again and reports it changed or removed.
  private func refresh(_ path: String, _ name: String, into events: inout [ModelEvent]) {
    guard directories[path] != nil, let identifier = MessageIdentifier.identifier(fromFileName: name) else {
      return
    }
    if directories[path]?.isWormhole == false {
      becomeWormhole(path, listing: nil, initial: false, into: &events)
    }
    if let (observation, stamp) = observe(path, name) {
      directories[path]?.stamps[name] = stamp
      events.append(.mailboxChanged(directory: path, identifier: identifier, observation))
    } else {
      guard directories[path]?.stamps.removeValue(forKey: name) != nil else { return }
      events.append(.mailboxRemoved(directory: path, identifier: identifier))
    }
  }

  private func readJournal(_ path: String, into events: inout [ModelEvent]) {
    guard let directory = directories[path] else { return }
    if !directory.isWormhole { becomeWormhole(path, listing: nil, initial: false, into: &events) }
    guard let reader = directories[path]?.journal else { return }
    let records = reader.readAvailable()
    if !records.isEmpty { events.append(.journalRecords(directory: path, records, initial: false)) }
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
  private func rescan(_ path: String, into events: inout [ModelEvent]) {
    guard let directory = directories[path] else { return }
    guard case .success(let listing) = DirectoryScanner.list(path) else {
      vanish(path, into: &events)
      return
    }
    if !directory.isContainer && directory.depth < configuration.maximumDepth {
      for name in listing.subdirectories where directories[path + "/" + name] == nil {
        discover(
          path + "/" + name, depth: directory.depth + 1, isContainer: false, initial: false, into: &events)
      }
    }
    if !directory.isWormhole {
      guard !listing.mailboxes.isEmpty || listing.hasJournal else { return }
      becomeWormhole(path, listing: listing, initial: false, into: &events)
      readJournal(path, into: &events)
      return
    }
    var present = Set<String>()
    for (name, identifier) in listing.mailboxes {
      present.insert(name)
      let known = directories[path]?.stamps[name]
      if let known, DirectoryScanner.stamp(directory: path, name: name) == known { continue }
      if let (observation, stamp) = observe(path, name) {
        directories[path]?.stamps[name] = stamp
        events.append(.mailboxChanged(directory: path, identifier: identifier, observation))
      }
    }
    for name in (directories[path]?.stamps.keys).map(Array.init) ?? [] where !present.contains(name) {
      directories[path]?.stamps[name] = nil
      if let identifier = MessageIdentifier.identifier(fromFileName: name) {
        events.append(.mailboxRemoved(directory: path, identifier: identifier))
      }
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
