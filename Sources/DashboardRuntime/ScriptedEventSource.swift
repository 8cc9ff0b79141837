import MailboxModel
import Synchronization

/// An event source that reports what it is told to: for tests and benchmarks of the loop.
/// Thread-safe.
public final class ScriptedEventSource: DashboardEventSource {
  private struct State {
    var deliver: (@Sendable ([ModelEvent]) -> Void)?
    var waiting: [[ModelEvent]] = []
    var rescans = 0
    var isCancelled = false
  }

  private let state = Mutex(State())

  /// A source that reports `initial` when the loop starts it (what a watcher finds first).
  public init(initial: [ModelEvent] = []) {
    if !initial.isEmpty { state.withLock { $0.waiting.append(initial) } }
  }

  public func start(delivering deliver: @escaping @Sendable ([ModelEvent]) -> Void) {
    let waiting = state.withLock { state in
      state.deliver = deliver
      defer { state.waiting = [] }
      return state.waiting
    }
    for batch in waiting { deliver(batch) }
  }

  /// Reports `events` now, from the caller's thread, as the watcher reports a batch; before the
  /// loop started the source, they wait for it. Nothing is reported after ``cancel()``.
  public func deliver(_ events: [ModelEvent]) {
    let deliver = state.withLock { state -> (@Sendable ([ModelEvent]) -> Void)? in
      guard !state.isCancelled else { return nil }
      if state.deliver == nil { state.waiting.append(events) }
      return state.deliver
    }
    deliver?(events)
  }

  public func rescan() { state.withLock { $0.rescans += 1 } }

  public func cancel() { state.withLock { $0.isCancelled = true } }

  /// How many times the loop asked for a rescan.
  public var rescanCount: Int { state.withLock { $0.rescans } }
  /// Whether the loop cancelled the source.
  public var isCancelled: Bool { state.withLock { $0.isCancelled } }
}
