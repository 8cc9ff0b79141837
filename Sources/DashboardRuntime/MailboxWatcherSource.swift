import Dispatch
import MailboxModel
import MailboxWatcher
import Synchronization

/// The real event source: a ``MailboxWatcher/MailboxWatcher`` on a queue of its own.
public final class MailboxWatcherSource: DashboardEventSource {
  private let queue = DispatchQueue(label: "wormhole.dashboard.watcher")
  private let watcher: MailboxWatcher
  private let delivery: Delivery

  /// A watcher of `roots`; fails as the watcher does (a root missing, inotify unavailable).
  /// Nothing is read until ``start(delivering:)``.
  public init(roots: [WatchRoot], configuration: MailboxWatcher.Configuration = .init())
    throws(WatcherError)
  {
    let delivery = Delivery()
    self.delivery = delivery
    watcher = try MailboxWatcher(roots: roots, configuration: configuration, queue: queue) { events in
      delivery.deliver(events)
    }
  }

  public func start(delivering deliver: @escaping @Sendable ([ModelEvent]) -> Void) {
    delivery.handler.withLock { $0 = deliver }
    let watcher = watcher
    queue.sync { watcher.start() }
  }

  public func rescan() { watcher.rescan() }

  public func cancel() { watcher.cancel() }

  /// Where the watcher's batches go, set once the loop starts.
  private final class Delivery: Sendable {
    let handler = Mutex<(@Sendable ([ModelEvent]) -> Void)?>(nil)

    func deliver(_ events: [ModelEvent]) {
      let handler = handler.withLock { $0 }
      handler?(events)
    }
  }
}
