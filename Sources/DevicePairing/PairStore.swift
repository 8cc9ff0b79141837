import DeviceSession
import Glibc
import KeyedArchive
import WormholeVocabulary

/// The pairs under a home: `pair create`, `pair list`, `pair delete`, and each device's
/// directory (see ``DeviceDirectory`` for the layout).
public struct PairStore: Sendable {
  /// The directory under the home that holds the pairs.
  public static let pairsDirectoryName = "pairs"
  static let descriptionFileName = "pair.json"

  /// The wormhole home.
  public let home: String

  public init(home: String) { self.home = home }

  /// `<home>/pairs`.
  public var pairsPath: String { home + "/" + Self.pairsDirectoryName }

  /// The name, validated, or ``PairStoreError/invalidName(_:)``.
  public static func name(_ text: String) throws(PairStoreError) -> PairName {
    do { return try PairName(text) } catch { throw .invalidName(error) }
  }

  /// The directory of one device.
  public func directory(for address: DeviceAddress) -> DeviceDirectory {
    DeviceDirectory(home: home, address: address)
  }

  private func pairPath(_ name: PairName) -> String { pairsPath + "/" + name.text }

  /// Creates the pair's directories and its `pair.json`.
  @discardableResult
  public func create(_ name: PairName) throws(PairStoreError) -> Pair {
    let pair = Pair(name: name)
    do {
      try DeviceFiles.makeDirectories(pairsPath)
      let path = pairPath(name)
      if DeviceFiles.exists(path) { throw PairStoreError.pairExists(name) }
      try DeviceFiles.makeDirectory(path)
      for device in pair.devices {
        let directory = self.directory(for: device)
        try DeviceFiles.makeDirectory(directory.path)
        try DeviceFiles.makeDirectory(directory.outboxPath)
      }
      let description = "{\"format\":1,\"name\":\(JSONText.string(name.text))}\n"
      try DeviceFiles.writeAtomically(Array(description.utf8), to: path + "/" + Self.descriptionFileName)
    } catch let error as PairStoreError {
      throw error
    } catch let failure as SystemCallFailure {
      throw .fileSystem(failure.message)
    } catch {
      throw .fileSystem("\(error)")
    }
    return pair
  }

  /// The pair of that name, checked to exist with a readable `pair.json`.
  public func pair(named name: PairName) throws(PairStoreError) -> Pair {
    let path = pairPath(name)
    guard DeviceFiles.exists(path) else { throw .noSuchPair(name) }
    let bytes: [UInt8]?
    do { bytes = try DeviceFiles.read(path + "/" + Self.descriptionFileName, limit: 4096) } catch {
      throw .damagedPair(name, reason: error.message)
    }
    guard let bytes else { throw .damagedPair(name, reason: "it has no \(Self.descriptionFileName)") }
    let value: ArchivedValue
    do { value = try JSONParser().parse(String(decoding: bytes, as: UTF8.self)) } catch {
      throw .damagedPair(name, reason: "its \(Self.descriptionFileName) is \(error.description)")
    }
    guard case .dictionary(let entries) = value,
      entries.contains(where: { $0.key == .string("name") && $0.value == .string(name.text) })
    else { throw .damagedPair(name, reason: "its \(Self.descriptionFileName) does not name it") }
    return Pair(name: name)
  }

  /// Every pair under the home with the state of its devices, by name. Directories that are
  /// not pairs (an invalid name, no readable `pair.json`) are left out.
  public func list() throws(PairStoreError) -> [PairStatus] {
    let names: [String]
    do { names = try DeviceFiles.entries(of: pairsPath) } catch { throw .fileSystem(error.message) }
    return names.compactMap { text -> PairStatus? in
      guard let name = try? PairName(text), let pair = try? pair(named: name) else { return nil }
      return status(of: pair)
    }.sorted { $0.pair.name < $1.pair.name }
  }

  /// The state of a pair's devices now: running (by their run locks), activated (by their
  /// links' sockets, see ``isActivated(_:)``) and queued transfers.
  public func status(of pair: Pair) -> PairStatus {
    PairStatus(pair: pair, phone: status(of: pair.phone), watch: status(of: pair.watch))
  }

  /// The state of one device now. Its ``ReachabilityReport`` counts only when the process that
  /// holds the run lock wrote it; a report also says the device activated (a broker's link has
  /// no socket).
  public func status(of address: DeviceAddress) -> DeviceStatus {
    let directory = self.directory(for: address)
    let pid = RunLock.holder(at: directory.runLockPath)
    let report = pid.flatMap { pid in ReachabilityReport.read(directory).flatMap { $0.pid == pid ? $0 : nil }
    }
    return DeviceStatus(
      address: address, runningPID: pid, queuedTransfers: Self.queuedTransferIDs(in: directory).count,
      isActivated: pid != nil && (report != nil || Self.isActivated(directory)), report: report,
      isStopped: pid.map { RunLock.isStopped(pid: $0) } ?? false)
  }

  /// Whether the device of `directory`, while it runs, has activated its session.
  ///
  /// Read from what activation leaves: the session's link binds `<role>/link.sock` when it
  /// starts (``SessionEngine/activate()``) and removes it when it stops. A device killed earlier
  /// leaves its socket behind, and a device that starts again takes its run lock (writing its
  /// pid, which updates the lock's modification time) before it activates; so the socket counts
  /// only when it was made no earlier than the lock was taken. Nothing connects to the socket
  /// to ask: a connection is what the counterpart makes.
  public static func isActivated(_ directory: DeviceDirectory) -> Bool {
    var socket = stat()
    var lock = stat()
    guard lstat(directory.socketPath, &socket) == 0, socket.st_mode & S_IFMT == S_IFSOCK,
      stat(directory.runLockPath, &lock) == 0
    else { return false }
    return (socket.st_mtim.tv_sec, socket.st_mtim.tv_nsec) >= (lock.st_mtim.tv_sec, lock.st_mtim.tv_nsec)
  }

  /// The ids of the transfers in a device's outbound queue, oldest first.
  /// A queue that cannot be read counts as empty here; ``transfers(of:)`` says what is wrong.
  public static func queuedTransferIDs(in directory: DeviceDirectory) -> [UInt64] {
    ((try? OutboxLog.read(directory).transfers) ?? []).map(\.id)
  }

  /// The transfers waiting in a device's outbound queue, oldest first, read from its files
  /// (for `transfers --pair`; a running device's session has the same in
  /// ``SessionEngine/outstandingTransfers``).
  public func transfers(of address: DeviceAddress) throws(PairStoreError) -> [FileTransfer] {
    let directory = self.directory(for: address)
    do { return try OutboxLog.read(directory).transfers } catch { throw .session(error) }
  }

  /// Cancels a queued transfer of a device that is not running: it is never delivered. The
  /// device's run lock is held meanwhile, so the device cannot start and send it halfway.
  /// While the device runs, cancel through its session (``SessionEngine/cancelTransfer(_:)``).
  public func cancelTransfer(_ id: UInt64, of address: DeviceAddress) throws(PairStoreError) {
    _ = try pair(named: address.pair)
    let directory = self.directory(for: address)
    let lock: RunLock
    do { lock = try RunLock(path: directory.runLockPath) } catch {
      switch error {
      case .held(let pid): throw .deviceRunning(address, pid: pid ?? 0)
      case .unavailable(let reason): throw .fileSystem(reason)
      }
    }
    defer { lock.release() }
    let outbox = OutboxLog(directory: directory)
    do throws(SessionError) {
      guard try outbox.contains(id) else { throw .transferNotFound(id) }
      try outbox.remove([id])
    } catch { throw .session(error) }
  }

  /// A device that ``delete(_:force:)`` stopped: its address, its pid, and whether it had to be
  /// killed (it did not end within the bound after SIGTERM).
  public struct StoppedDevice: Sendable, Equatable {
    public var address: DeviceAddress
    public var pid: Int32
    public var wasKilled: Bool
  }

  /// How long a forced delete waits for a device to end after SIGTERM, then after SIGKILL.
  public static let stopBound: Double = 5

  /// Removes the pair and everything its devices hold. Refused while a device of it runs,
  /// unless `force`: the running devices are then stopped first (SIGTERM to the holder of each
  /// run lock, its end awaited through a pidfd for ``stopBound`` seconds, then SIGKILL), so that
  /// none goes on running on the deleted tree beside a device of a pair created again with the
  /// name. A device run by this process itself is not signalled. Returns the devices stopped.
  @discardableResult
  public func delete(_ name: PairName, force: Bool = false) throws(PairStoreError) -> [StoppedDevice] {
    let path = pairPath(name)
    guard DeviceFiles.exists(path) else { throw .noSuchPair(name) }
    var stopped: [StoppedDevice] = []
    for device in Pair(name: name).devices {
      let directory = directory(for: device)
      guard let pid = RunLock.holder(at: directory.runLockPath) else { continue }
      guard force else { throw .deviceRunning(device, pid: pid) }
      // A device of this very process (a test, a benchmark) is its caller's to stop.
      guard pid != getpid() else { continue }
      if let stop = try Self.stop(directory) {
        stopped.append(StoppedDevice(address: device, pid: stop.pid, wasKilled: stop.killed))
      }
    }
    do { try DeviceFiles.removeTree(path) } catch { throw .fileSystem(error.message) }
    return stopped
  }

  /// Stops the process that holds the run lock of `directory` and waits for its end: SIGTERM,
  /// then SIGKILL after ``stopBound`` seconds. `nil` when none runs any more.
  private static func stop(_ directory: DeviceDirectory) throws(PairStoreError) -> (pid: Int32, killed: Bool)?
  {
    guard let watch = DeviceExitWatch(directory: directory) else {
      // Ended meanwhile, or no pidfds here: the lock says which.
      guard let pid = RunLock.holder(at: directory.runLockPath) else { return nil }
      throw .fileSystem(
        "the device with pid \(pid) could not be watched (this system has no pidfd_open); stop it, then delete again"
      )
    }
    _ = kill(watch.pid, SIGTERM)
    if watch.waitForExit(seconds: stopBound) { return (watch.pid, false) }
    _ = kill(watch.pid, SIGKILL)
    guard watch.waitForExit(seconds: stopBound) else {
      throw .fileSystem(
        "the device with pid \(watch.pid) did not end after SIGTERM and SIGKILL; nothing was deleted")
    }
    return (watch.pid, true)
  }
}
