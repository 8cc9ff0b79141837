import Synchronization

/// Items handed to a consumer outside every lock, in the order they were queued, one thread at
/// a time: whoever finds the queue idle drains it, so the consumer may call back into what
/// queued them. The session's deliveries and its observations are each one.
final class Handoff<Item: Sendable>: Sendable {
  /// Who is handed the items.
  typealias Consumer = @Sendable (Item) -> Void

  private struct State {
    var consumer: Consumer?
    var queue: [Item] = []
    var isDraining = false
  }

  private let state = Mutex(State())

  init() {}

  /// Makes `consumer` the one handed the items from now on (`nil`: nobody).
  func setConsumer(_ consumer: Consumer?) { state.withLock { $0.consumer = consumer } }

  /// Queues `items` for ``drain()``. With `whileUnconsumed`, they wait for a consumer while
  /// there is none; without, they are dropped while there is none.
  func append(_ items: some Sequence<Item>, whileUnconsumed: Bool) {
    state.withLock { state in
      if whileUnconsumed || state.consumer != nil { state.queue.append(contentsOf: items) }
    }
  }

  /// Hands the queued items to the consumer, unless another thread is doing so already (it
  /// hands them these too) or there is no consumer.
  func drain() {
    while true {
      let next = state.withLock { state -> (Consumer, [Item])? in
        guard let consumer = state.consumer, !state.queue.isEmpty, !state.isDraining else { return nil }
        state.isDraining = true
        let items = state.queue
        state.queue = []
        return (consumer, items)
      }
      guard let (consumer, items) = next else { return }
      for item in items { consumer(item) }
      state.withLock { $0.isDraining = false }
    }
  }
}
