import Dashboard
import DevicePairing
import DeviceSession
import Dispatch
import Glibc
import Synchronization

/// The pairs of simulated devices under a home, read from the pair store and posted as
/// ``DashboardMessage/pairs(_:)``: at start, then whenever what they show changed.
///
/// It polls: the store is read every ``interval`` on a queue of its own (the run locks by
/// `F_OFD_GETLK`, the contexts' and the queue's files), so a device that ends, even killed,
/// shows as not running within that interval. Nothing is posted while nothing changed. An
/// event source (a pidfd per running device, inotify on `<home>/pairs`) is the next step.
public final class PairsSource: DashboardMessageSource {
  /// How often the store is read.
  public static let interval: DispatchTimeInterval = .milliseconds(500)
  /// The largest context file read (a context is one frame of the link).
  private static let contextLimit = FrameCodec.defaultMaximumFrameBytes + 64

  private let store: PairStore
  private let queue = DispatchQueue(label: "wormhole.dashboard.pairs")
  private let state = Mutex<State>(State())

  private struct State {
    var post: (@Sendable (DashboardMessage) -> Void)?
    var started = false
    var last: [PairSnapshot]?
  }

  /// The pairs under `home` (`<home>/pairs`); nothing is read until ``start(posting:)``.
  public init(home: String) { store = PairStore(home: home) }

  public func start(posting post: @escaping @Sendable (DashboardMessage) -> Void) {
    let first = state.withLock { state -> Bool in
      state.post = post
      defer { state.started = true }
      return !state.started
    }
    guard first else { return }
    queue.async { [weak self] in self?.poll() }
  }

  public func cancel() {
    state.withLock { $0.post = nil }
    // A poll under way finishes before this returns; none starts after.
    queue.sync {}
  }

  /// Reads the store, posts the pairs when they differ from the last posted, and comes again
  /// after ``interval`` until cancelled.
  private func poll() {
    guard state.withLock({ $0.post != nil }) else { return }
    let pairs = Self.snapshots(of: store)
    let post = state.withLock { state -> (@Sendable (DashboardMessage) -> Void)? in
      guard let post = state.post, state.last != pairs else { return nil }
      state.last = pairs
      return post
    }
    post?(.pairs(pairs))
    queue.asyncAfter(deadline: .now() + Self.interval) { [weak self] in self?.poll() }
  }

  /// Cancels a queued transfer of a device that is not running (see
  /// `PairStore.cancelTransfer(_:of:)`); why it could not be, if so.
  static func cancelTransfer(_ id: UInt64, pair: String, role: PairSnapshot.Role, home: String) -> String? {
    do throws(PairStoreError) {
      let name = try PairStore.name(pair)
      try PairStore(home: home).cancelTransfer(
        id, of: DeviceAddress(pair: name, role: role == .phone ? .phone : .watch))
      return nil
    } catch {
      return error.description
    }
  }

  /// Every pair of `store` as the dashboard shows it, by name. A store that cannot be listed
  /// shows no pair.
  public static func snapshots(of store: PairStore) -> [PairSnapshot] {
    let statuses = (try? store.list()) ?? []
    return statuses.map { status in
      PairSnapshot(
        name: status.pair.name.text, home: store.home, phone: device(status.phone, store: store),
        watch: device(status.watch, store: store))
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
      applicationContext: applicationContext, receivedContext: receivedContext, queuedTransfers: transfers,
      error: errors.isEmpty ? nil : errors.joined(separator: "; "))
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
