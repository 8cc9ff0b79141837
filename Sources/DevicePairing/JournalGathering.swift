import Dispatch
import Glibc
import Synchronization

/// What a journal is handed on any thread, stamped with the time it was handed over and written
/// in batches on the journal's serial queue: the first item of a burst schedules one write
/// ``milliseconds`` later, with everything gathered by then, so that a burst costs one wake-up
/// of the queue, not one per record.
final class JournalGathering<Item: Sendable>: Sendable {
  /// An item and when it was handed over, in milliseconds since 1970 (the clock the journal's
  /// own times come from).
  typealias Stamped = (item: Item, milliseconds: Int64)

  /// How long items are gathered before they are written.
  let milliseconds: Int
  private let queue: DispatchQueue
  private let waiting = Mutex(Waiting())

  private struct Waiting {
    var items: [Stamped] = []
    var isScheduled = false
  }

  /// Gathers for `milliseconds` and writes on a serial queue labelled `label`.
  init(label: String, milliseconds: Int) {
    queue = DispatchQueue(label: label)
    self.milliseconds = milliseconds
  }

  /// Adds `items`, stamped with the time now. When nothing was scheduled since the last write,
  /// `write` runs on the queue ``milliseconds`` from now with everything gathered by then (it
  /// may be empty: a ``flush(_:)`` took it).
  func add(_ items: [Item], write: @escaping @Sendable ([Stamped]) -> Void) {
    guard !items.isEmpty else { return }
    let now = Self.nowMilliseconds()
    let schedules = waiting.withLock { waiting -> Bool in
      waiting.items += items.map { ($0, now) }
      guard !waiting.isScheduled else { return false }
      waiting.isScheduled = true
      return true
    }
    guard schedules else { return }
    queue.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [self] in write(take()) }
  }

  /// Runs `write` on the queue with everything gathered so far, and returns when it has.
  func flush(_ write: ([Stamped]) -> Void) { queue.sync { write(take()) } }

  /// On the queue: everything gathered, in order; what comes next schedules a write again.
  private func take() -> [Stamped] {
    waiting.withLock { waiting in
      defer {
        waiting.items = []
        waiting.isScheduled = false
      }
      return waiting.items
    }
  }

  private static func nowMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
  }
}
