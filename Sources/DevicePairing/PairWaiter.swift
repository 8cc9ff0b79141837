import DeviceSession
import Glibc
import Inotify

/// Waits until a device of a pair is up (it runs, is not stopped, and its session activated, as
/// ``PairStore/status(of:)`` tells it), or until the pair is reachable: what `pair wait` gives a
/// script instead of polling `pair list`.
///
/// Event-driven: the device's directory is watched with inotify before its state is first read,
/// and what a starting device does there (its run lock's pid, its link's socket, its
/// reachability report) wakes the waiter to read the state again. A device continued after
/// SIGSTOP changes no file, so the state is also read every ``recheckInterval`` seconds (every
/// ``stoppedRecheckInterval`` while a device of the pair runs stopped, and when inotify is not
/// available); the waiter never spins.
public struct PairWaiter: Sendable {
  /// What the waiter waits for.
  public enum Goal: Sendable, Equatable {
    /// The device of that role runs, is not stopped (SIGSTOP), and its session activated.
    case activated(DeviceRole)
    /// The pair is reachable as a device of it running here knows it (``PairStatus/isReachable``):
    /// both devices up, or one up here and its counterpart reached on another machine through a
    /// broker.
    case reachable
  }

  /// How a wait ended: whether the goal was met, and the pair's state when it ended.
  public struct Outcome: Sendable, Equatable {
    public var isMet: Bool
    public var status: PairStatus
  }

  /// How often (seconds) the state is read again without a file event.
  public static let recheckInterval: Double = 1
  /// How often (seconds) the state is read again while a device of the pair runs stopped (a
  /// SIGCONT changes no file), or when inotify is not available.
  public static let stoppedRecheckInterval: Double = 0.25

  /// The pair store of the home.
  public let store: PairStore
  /// The pair waited on.
  public let pair: PairName
  /// What is waited for.
  public let goal: Goal

  public init(store: PairStore, pair: PairName, goal: Goal) {
    self.store = store
    self.pair = pair
    self.goal = goal
  }

  /// Whether `status` meets the goal.
  public func isMet(_ status: PairStatus) -> Bool {
    switch goal {
    case .activated(let role): Self.isUp(status.device(role))
    case .reachable: status.isReachable
    }
  }

  /// Whether a device runs here, is not stopped, and its session activated.
  public static func isUp(_ device: DeviceStatus) -> Bool {
    device.isRunning && device.runningPID != 0 && !device.isStopped && device.isActivated
  }

  /// Waits up to `seconds` for the goal (at once when it is met already; one look with 0).
  /// `waiting` is called once, with the state, when the first look finds the goal not met and
  /// there is time left to wait.
  ///
  /// Throws ``PairStoreError/noSuchPair(_:)`` (or `damagedPair`) when the pair does not exist,
  /// at the start or once it is deleted while the waiter waits (a pair damaged meanwhile, as
  /// one being deleted is for a moment, is waited on and said damaged if it is at the end).
  public func wait(seconds: Double, waiting: (PairStatus) -> Void = { _ in }) throws(PairStoreError)
    -> Outcome
  {
    let pair = try store.pair(named: pair)
    let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, min(seconds, 86_400 * 365)) * 1000))
    // Watched before the first look, so that nothing a device does after it goes unheard.
    let watch = try? Inotify()
    let directories: [DeviceDirectory] =
      switch goal {
      case .activated(let role): [store.directory(for: DeviceAddress(pair: pair.name, role: role))]
      case .reachable: pair.devices.map { store.directory(for: $0) }
      }
    var isFirstLook = true
    while true {
      if let watch { Self.addWatches(watch, directories) }
      // A pair deleted meanwhile is said as missing, not waited on. One seen damaged (no
      // pair.json) is most likely being deleted: looked at again, said damaged if it stays so.
      var damage: PairStoreError? = nil
      do { _ = try store.pair(named: pair.name) } catch {
        guard case .damagedPair = error else { throw error }
        damage = error
      }
      let status = store.status(of: pair)
      if damage == nil, isMet(status) { return Outcome(isMet: true, status: status) }
      let remaining = deadline - ContinuousClock.now
      guard remaining > .zero else {
        if let damage { throw damage }
        return Outcome(isMet: false, status: status)
      }
      if isFirstLook { waiting(status) }
      isFirstLook = false
      let stopped = status.phone.isStopped || status.watch.isStopped
      let interval = (stopped || watch == nil) ? Self.stoppedRecheckInterval : Self.recheckInterval
      let milliseconds = min(remaining.pollTimeoutMilliseconds, Int32(interval * 1000))
      Self.await(watch, milliseconds: max(1, milliseconds))
    }
  }

  /// The changes in a device's directory that may change its state.
  private static let mask: InotifyMask = [
    .modify, .closeWrite, .movedTo, .movedFrom, .create, .delete, .deleteSelf, .moveSelf, .onlyDirectory,
  ]

  /// Watches each directory and the pair's (for its removal), again on each look: one made
  /// anew since has a new inode; one watched keeps its watch.
  private static func addWatches(_ watch: Inotify, _ directories: [DeviceDirectory]) {
    for directory in directories { _ = try? watch.addWatch(directory.path, mask: mask) }
    if let pair = directories.first?.pairPath { _ = try? watch.addWatch(pair, mask: mask) }
  }

  /// Waits for an event on `watch` (draining what came) or for `milliseconds` to pass.
  private static func await(_ watch: Inotify?, milliseconds: Int32) {
    var entry = pollfd(fd: watch?.fileDescriptor ?? -1, events: Int16(POLLIN), revents: 0)
    // A negative descriptor is ignored by poll: then it only waits out the interval.
    while poll(&entry, 1, milliseconds) < 0 && errno == EINTR {}
    _ = try? watch?.readEvents()
  }
}
