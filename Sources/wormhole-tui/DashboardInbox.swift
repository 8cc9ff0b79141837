import Dashboard
import Glibc
import Synchronization

/// Messages for the dashboard's loop from other threads (the watcher's queue, finished
/// effects), with a pipe that wakes the loop from `poll` when one arrives.
final class DashboardInbox: Sendable {
  private let messages = Mutex<[DashboardMessage]>([])
  /// The end the loop polls.
  let readDescriptor: Int32
  private let writeDescriptor: Int32

  init() throws(CommandError) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else {
      throw .failure("cannot make the dashboard's wake pipe: \(String(cString: strerror(errno)))")
    }
    for end in ends {
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
    }
    readDescriptor = ends[0]
    writeDescriptor = ends[1]
  }

  deinit {
    close(readDescriptor)
    close(writeDescriptor)
  }

  /// Queues `message` and wakes the loop.
  func post(_ message: DashboardMessage) {
    let wasEmpty = messages.withLock { queue in
      queue.append(message)
      return queue.count == 1
    }
    if wasEmpty {
      var byte: UInt8 = 1
      _ = write(writeDescriptor, &byte, 1)  // a full pipe already wakes the loop
    }
  }

  /// Everything queued, oldest first; empties the wake pipe.
  func take() -> [DashboardMessage] {
    var buffer = [UInt8](repeating: 0, count: 256)
    while read(readDescriptor, &buffer, buffer.count) > 0 {}
    return messages.withLock { queue in
      defer { queue = [] }
      return queue
    }
  }
}
