import Dispatch
import Glibc
import Inotify
import KeyedArchive
import MailboxModel
import Synchronization
import Wormhole
import WormholeVocabulary

/// What changed in one step of the live model.
public struct ModelUpdate: Sendable {
  /// Traffic entries recognized in this step, in the order they were recognized.
  public var newTraffic: [TrafficEntry]
  /// The identifiers (directory, identifier) of mailboxes that changed, removed or read again.
  public var changedMailboxes: [(directory: FileName, identifier: FileName)]
  /// Whether directories appeared or vanished.
  public var directoriesChanged: Bool
  /// Notices added in this step (the watch limit reached, descriptors running short...), oldest
  /// first.
  public var newNotices: [String] = []
}

/// The model kept up to date by a ``MailboxWatcher``: events are applied on one serial queue,
/// and readers take ``snapshot`` whenever they like (a copy-on-write value, so taking one is
/// cheap and it never changes under the reader).
///
/// ```swift
/// let model = try LiveModel(roots: [.home(WormholeHome.defaultPath())]) { update in
///   for entry in update.newTraffic { print(entry.jsonLine) }
/// }
/// let state = model.snapshot
/// ```
public final class LiveModel: Sendable {
  private let queue: DispatchQueue
  private let state: Mutex<ModelState>
  private let watcher: MailboxWatcher
  private let scheduledTick = Mutex<Int64?>(nil)
  private let onUpdate: (@Sendable (ModelUpdate) -> Void)?

  /// Starts watching `roots`. When this returns, the model holds everything found below them
  /// (messages are decoded only when asked for). `onUpdate` is called on the model's queue after
  /// each batch of events that changed something.
  public init(
    roots: [WatchRoot], configuration: ModelConfiguration = ModelConfiguration(),
    watcherConfiguration: MailboxWatcher.Configuration = MailboxWatcher.Configuration(),
    onUpdate: (@Sendable (ModelUpdate) -> Void)? = nil
  ) throws(WatcherError) {
    let queue = DispatchQueue(label: "wormhole.live-model")
    let state = Mutex(ModelState(configuration: configuration))
    self.queue = queue
    self.state = state
    self.onUpdate = onUpdate
    let box = WeakBox()
    watcher = try MailboxWatcher(roots: roots, configuration: watcherConfiguration, queue: queue) { events in
      box.model?.apply(events)
    }
    box.model = self
    queue.sync { watcher.start() }
  }

  // The last reference may go on the model's own queue (a tick), where waiting for it would
  // deadlock: stop the sources without waiting; the watcher's handler no longer reaches us.
  deinit { watcher.stopSources() }

  /// The model as it is now.
  public var snapshot: ModelState { state.withLock { $0 } }

  /// Stops watching; no update is delivered after this returns.
  public func cancel() { watcher.cancel() }

  /// Runs `body` after every event delivered so far was applied. For tests and scripts that want
  /// a settled model. Not from `onUpdate`, which runs on the model's queue.
  public func sync<T>(_ body: (ModelState) -> T) -> T {
    queue.sync { body(snapshot) }
  }

  /// Stalls the reader: no event is read or applied until ``resume()``, and changes queue in the
  /// kernel meanwhile. If more happen than the kernel queues, the watcher rescans on resuming,
  /// so the model still ends consistent with the disk. For tests and benchmarks of a reader that
  /// falls behind. Calls must pair, and ``cancel()`` only after resuming: a program that may
  /// quit while paused should freeze as the dashboard does, with a flag in its own state that
  /// holds events back (`FrozenEvents`), not with this.
  public func suspend() { queue.suspend() }

  /// Resumes a model paused by ``suspend()``.
  public func resume() { queue.resume() }

  /// Feeds raw inotify events to the watcher, for tests (an overflow, for example).
  func injectForTesting(_ events: [InotifyEvent]) {
    queue.sync { watcher.handle(events) }
  }

  private func apply(_ events: [ModelEvent]) {
    dispatchPrecondition(condition: .onQueue(queue))
    let now = currentMilliseconds()
    var update = ModelUpdate(newTraffic: [], changedMailboxes: [], directoriesChanged: false)
    var deadline: Int64?
    state.withLock { state in
      for event in events {
        for effect in state.apply(event, at: now) {
          switch effect {
          case .trafficAppended(let entries): update.newTraffic += entries
          case .noticesAdded(let notices): update.newNotices += notices
          case .tick(let at): deadline = min(deadline ?? at, at)
          }
        }
      }
    }
    for event in events {
      switch event {
      case .mailboxChanged(let directory, let identifier, _), .mailboxRemoved(let directory, let identifier):
        update.changedMailboxes.append((directory, identifier))
      case .directoryAppeared, .directoryVanished, .directoryScanned, .directoryError, .watchLimitReached:
        update.directoriesChanged = true
      case .journalRecords, .tick, .notice:
        break
      }
    }
    if let deadline { scheduleTick(at: deadline, now: now) }
    // A tick is reported even when it changed nothing visible: a pairing window closed.
    if !update.newTraffic.isEmpty || !update.changedMailboxes.isEmpty || update.directoriesChanged
      || !update.newNotices.isEmpty || events.contains(.tick)
    {
      onUpdate?(update)
    }
  }

  /// Arranges one tick at `deadline` (pairing windows close then), unless one comes sooner.
  private func scheduleTick(at deadline: Int64, now: Int64) {
    let schedule = scheduledTick.withLock { scheduled -> Bool in
      if let scheduled, scheduled <= deadline, scheduled > now { return false }
      scheduled = deadline
      return true
    }
    guard schedule else { return }
    let delay = max(deadline - now, 0) + 1
    queue.asyncAfter(deadline: .now() + .milliseconds(Int(delay))) { [weak self] in
      guard let self else { return }
      self.scheduledTick.withLock { $0 = nil }
      self.apply([.tick])
    }
  }
}

/// Lets the watcher's handler reach the model without keeping it alive.
private final class WeakBox: @unchecked Sendable {
  weak var model: LiveModel?
}

/// Milliseconds since 1970 from the real-time clock (journal records use the same clock).
func currentMilliseconds() -> Int64 {
  var spec = timespec()
  clock_gettime(CLOCK_REALTIME, &spec)
  return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
}
