import Dispatch
import MailboxModel
import MailboxWatcher
import Synchronization

/// The real event source: a ``MailboxWatcher/MailboxWatcher`` on a queue of its own.
public final class MailboxWatcherSource: DashboardEventSource {
  private let queue = DispatchQueue(label: "wormhole.dashboard.watcher")
  private let watcher: MailboxWatcher
  let delivery: Delivery

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
    delivery.handler.withLock { $0.deliver = deliver }
    let watcher = watcher
    queue.sync { watcher.start() }
  }

  public func rescan() { watcher.rescan() }

  public func cancel() { watcher.cancel() }

  /// Where the watcher's batches go, set once the loop starts.
  final class Delivery: Sendable {
    /// The closure sits in a struct: a `Mutex` of the function type itself re-wraps it in two
    /// reabstraction thunks at every `withLock`, so each batch would run a longer chain.
    struct Slot { var deliver: (@Sendable ([ModelEvent]) -> Void)? }
    let handler = Mutex(Slot())

    func deliver(_ events: [ModelEvent]) {
      let deliver = handler.withLock { $0.deliver }
      deliver?(events)
    }
  }
}
