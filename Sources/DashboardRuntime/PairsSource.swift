import Dashboard
import DevicePairing
import DeviceSession
import Dispatch
import Glibc
import Synchronization

/// The pairs of simulated devices under a home, read from the pair store and posted as
/// ``DashboardMessage/pairs(_:)``: at start, then whenever what they show changed.
///
/// The store is read on a queue of its own (the run locks by `F_OFD_GETLK`, the links' sockets
/// for activation, the contexts' and the queue's files) when something changed: inotify on the
/// pair tree (``PairsTreeWatch``: a context written, a run lock taken, a link's socket made or
/// removed, a transfer queued or acknowledged, a pair created or deleted) brings a read within
/// ``settleMilliseconds`` of the change, and each running device's process is watched through
/// a pidfd (``DeviceExitWatch``), so a device that is killed shows as not running at once. The
/// store is also read every ``interval``, for what no event announces (and every
/// ``pollingInterval`` where inotify is not available). Nothing is posted while nothing changed.
public final class PairsSource: DashboardMessageSource {
  /// How often the store is read while the pair tree is watched.
  public static let interval: DispatchTimeInterval = .seconds(5)
  /// How often the store is read where inotify is not available.
  public static let pollingInterval: DispatchTimeInterval = .milliseconds(500)
  /// How long a read waits after a change, so that a burst of writes costs one read.
  public static let settleMilliseconds = 20
  /// The largest context file read (a context is one frame of the link).
  private static let contextLimit = FrameCodec.defaultMaximumFrameBytes + 64

  private let store: PairStore
  private let interval: DispatchTimeInterval
  private let queue = DispatchQueue(label: "wormhole.dashboard.pairs")
  private let state = Mutex(PollingSourceState<[PairSnapshot]>())
  private let tree = Mutex(TreeState())

  /// The device processes watched, so that one that ends brings a read at once.
  private let exits: ProcessExitWatches

  /// The pair tree's watch, and the reads its changes bring.
  private struct TreeState {
    /// The pair tree's watch and the source reading its events, once started.
    var watched: TreeSource?
    /// Whether a read after a change is scheduled.
    var isSettling = false
  }

  /// The pair tree's watch and the read source on its inotify descriptor.
  private struct TreeSource: @unchecked Sendable {
    var watch: PairsTreeWatch
    var source: any DispatchSourceRead
  }

  /// The pairs under `home` (`<home>/pairs`); nothing is read until ``start(posting:)``.
  /// `interval` is how often the store is read besides its changes (``interval`` by default).
  public init(home: String, interval: DispatchTimeInterval = PairsSource.interval) {
    store = PairStore(home: home)
    self.interval = interval
    exits = ProcessExitWatches(queue: queue)
  }

  deinit {
    // An active source is not released with its last reference: cancel it, closing its inotify
    // descriptor (the exit watches cancel theirs).
    tree.withLock { $0.watched }?.source.cancel()
  }

  public func start(posting post: @escaping @Sendable (DashboardMessage) -> Void) {
    guard state.startPosting(post) else { return }
    queue.async { [weak self] in
      self?.watchTree()
      self?.poll(generation: 0)
    }
  }

  /// Starts the inotify watch of the pair tree; on the source's queue.
  private func watchTree() {
    guard let watch = PairsTreeWatch(home: store.home) else { return }
    let source = DispatchSource.makeReadSource(fileDescriptor: watch.inotify.fileDescriptor, queue: queue)
    source.setEventHandler { [weak self] in
      guard watch.drain() else { return }
      self?.settle()
    }
    // The watch (its descriptor) lives until the source no longer reads it.
    source.setCancelHandler { withExtendedLifetime(watch) {} }
    tree.withLock { $0.watched = TreeSource(watch: watch, source: source) }
    source.resume()
  }

  /// Reads the store ``settleMilliseconds`` from now, unless a read is scheduled already.
  private func settle() {
    let schedules = tree.withLock { tree -> Bool in
      defer { tree.isSettling = true }
      return !tree.isSettling
    }
    guard schedules else { return }
    queue.asyncAfter(deadline: .now() + .milliseconds(Self.settleMilliseconds)) { [weak self] in
      guard let self else { return }
      self.tree.withLock { $0.isSettling = false }
      self.pollNow()
    }
  }

  public func cancel() {
    state.withLock { $0.post = nil }
    // A poll under way finishes before this returns; none starts after.
    queue.sync {
      exits.cancel()
      tree.withLock { tree in
        tree.watched?.source.cancel()
        tree.watched = nil
      }
    }
  }

  /// Reads the store, posts the pairs when they differ from the last posted, watches the
  /// processes of the devices that run, and comes again after ``interval`` until cancelled
  /// (or until a device's end starts a newer chain).
  private func poll(generation: UInt64) {
    guard state.mayPoll(generation) else { return }
    // Pairs and devices made since the last read are watched before they are read: a change
    // after this read is an event.
    let watched = tree.withLock { $0.watched }
    watched?.watch.update()
    let pairs = Self.snapshots(of: store)
    state.posting(ifChanged: pairs)?(.pairs(pairs))
    watchExits(of: pairs)
    let next = watched == nil ? Self.pollingInterval : interval
    queue.asyncAfter(deadline: .now() + next) { [weak self] in self?.poll(generation: generation) }
  }

  /// Reads the store now, from the source's queue: a watched device ended, or the tree changed.
  private func pollNow() {
    poll(generation: state.startChain())
  }

  /// Watches the process of every device that runs (by a pidfd, readable when it ends) and
  /// stops watching those that no longer do. On the source's queue.
  private func watchExits(of pairs: [PairSnapshot]) {
    var running: [String: Int32] = [:]
    for pair in pairs {
      guard let name = try? PairStore.name(pair.name) else { continue }
      for role in PairSnapshot.Role.allCases {
        guard let pid = pair.device(role).runningPID, pid > 0 else { continue }
        let directory = store.directory(
          for: DeviceAddress(pair: name, role: role == .phone ? .phone : .watch))
        running[directory.runLockPath] = pid
      }
    }
    exits.watch(running: running) { [weak self] in self?.pollNow() }
  }

  /// Every pair of `store` as the dashboard shows it, by name. A store that cannot be listed
  /// shows no pair.
  public static func snapshots(of store: PairStore) -> [PairSnapshot] {
    let statuses = (try? store.list()) ?? []
    return statuses.map { status in
      PairSnapshot(
        name: status.pair.name.text, home: store.home, phone: device(status.phone, store: store),
        watch: device(status.watch, store: store), reachability: reachability(status.reachability))
    }
  }

  private static func reachability(_ reachability: PairStatus.Reachability) -> PairSnapshot.Reachability {
    switch reachability {
    case .reachable: return .reachable
    case .unreachable: return .unreachable
    case .unknown(let reason): return .unknown(reason)
    }
  }

  private static func device(_ status: DeviceStatus, store: PairStore) -> PairSnapshot.Device {
    let directory = store.directory(for: status.address)
    var errors: [String] = []
    func context(_ path: String) -> [PairSnapshot.ContextEntry] {
      switch readContext(path) {
      case .success(let entries): return entries
      case .failure(let error):
        errors.append(error.message)
        return []
      }
    }
    let applicationContext = context(directory.applicationContextPath)
    let receivedContext = context(directory.receivedContextPath)
    var transfers: [PairSnapshot.QueuedTransfer] = []
    do {
      transfers = try store.transfers(of: status.address).map {
        PairSnapshot.QueuedTransfer(
          id: $0.id, identifier: $0.identifier, size: $0.payload.count, time: $0.time / 1_000_000)
      }
    } catch {
      errors.append("the outbound queue cannot be read: \(error)")
    }
    return PairSnapshot.Device(
      role: status.address.role == .phone ? .phone : .watch, runningPID: status.runningPID,
      isActivated: status.isActivated,
      applicationContext: applicationContext, receivedContext: receivedContext, queuedTransfers: transfers,
      error: errors.isEmpty ? nil : errors.joined(separator: "; "),
      denial: status.report?.denial.map {
        PairSnapshot.Denial(isTakenOver: $0.kind == .takenOver, reason: $0.reason)
      })
  }

  /// Why a context file could not be read.
  struct ReadFailure: Error {
    var message: String
  }

  /// The entries of a context file (`"WDC1" u64 version u64 acknowledged entries`, see
  /// `FileSessionStorage`), by identifier; none when there is no file.
  static func readContext(_ path: String) -> Result<[PairSnapshot.ContextEntry], ReadFailure> {
    let bytes: [UInt8]
    switch readFile(path) {
    case .success(let read):
      guard let read else { return .success([]) }
      bytes = read
    case .failure(let failure): return .failure(failure)
    }
    guard bytes.count >= 20, Array(bytes[0..<4]) == Array("WDC1".utf8) else {
      return .failure(ReadFailure(message: "\(path) is not a context file"))
    }
    do {
      let entries = try SessionContext.decodeEntries(Array(bytes[20...]))
      return .success(
        entries.map { PairSnapshot.ContextEntry(identifier: $0.key, size: $0.value.count) }
          .sorted { $0.identifier < $1.identifier })
    } catch {
      return .failure(ReadFailure(message: "\(path) is damaged: \(error.description)"))
    }
  }

  /// The bytes of the file at `path`, `nil` when there is none.
  private static func readFile(_ path: String) -> Result<[UInt8]?, ReadFailure> {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else {
      if errno == ENOENT { return .success(nil) }
      return .failure(ReadFailure(message: "\(path) cannot be read: " + String(cString: strerror(errno))))
    }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        return .failure(ReadFailure(message: "\(path) cannot be read: " + String(cString: strerror(errno))))
      }
      if count == 0 { break }
      bytes.append(contentsOf: chunk[0..<count])
      if bytes.count > contextLimit { return .failure(ReadFailure(message: "\(path) is too large")) }
    }
    return .success(bytes)
  }
}
