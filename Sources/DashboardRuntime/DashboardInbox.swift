import Dashboard
import Synchronization
import WakeSignal

/// Messages for the dashboard's loop from other threads (the event source, finished effects),
/// with a ``WakePipe`` that wakes the loop from its wait when one arrives.
public final class DashboardInbox: Sendable {
  private let messages = Mutex<[DashboardMessage]>([])
  private let pipe: WakePipe

  /// An empty inbox with its own wake pipe.
  public init() throws(WakePipeError) { pipe = try WakePipe() }

  /// The descriptor the loop waits on: readable while messages are queued.
  public var wakeDescriptor: Int32 { pipe.readDescriptor }

  /// Queues `message` and wakes the loop.
  public func post(_ message: DashboardMessage) {
    let wasEmpty = messages.withLock { queue in
      queue.append(message)
      return queue.count == 1
    }
    if wasEmpty { pipe.signal() }
  }

  /// Everything queued, oldest first; empties the wake pipe.
  public func take() -> [DashboardMessage] {
    pipe.drain()
    return messages.withLock { queue in
      defer { queue = [] }
      return queue
    }
  }
}
