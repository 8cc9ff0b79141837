import Glibc

/// A pipe that wakes a thread blocked in `poll(2)`: any thread calls ``signal()``, the waiting
/// thread polls ``readDescriptor`` and calls ``drain()`` once it is readable.
///
/// Both ends are non-blocking and close on exec. ``signal()`` writes one byte and is
/// async-signal-safe (a signal handler written in C may write to ``writeDescriptor`` itself); a
/// full pipe already wakes the reader, so a signal never blocks and never fails visibly.
public final class WakePipe: Sendable {
  /// The end to poll for reading.
  public let readDescriptor: Int32
  /// The end ``signal()`` writes to; for a C signal handler that writes its own byte.
  public let writeDescriptor: Int32

  /// A new pipe, or the reason the system gave none.
  public init() throws(WakePipeError) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { throw WakePipeError(errno: errno) }
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

  /// Makes ``readDescriptor`` readable until the next ``drain()``.
  public func signal() {
    var byte: UInt8 = 1
    _ = write(writeDescriptor, &byte, 1)
  }

  /// Empties the pipe: ``readDescriptor`` is not readable again until the next ``signal()``.
  public func drain() {
    var buffer = [UInt8](repeating: 0, count: 256)
    while read(readDescriptor, &buffer, buffer.count) > 0 {}
  }

  /// Whether a ``signal()`` arrived since the last ``drain()``, waiting at most `milliseconds`
  /// for one (0: only look; negative: no limit). Does not drain.
  public func wait(milliseconds: Int32) -> Bool { Self.isReadable(readDescriptor, waiting: milliseconds) }

  /// Whether `descriptor` is readable, waiting at most `milliseconds` for it (0: only look;
  /// negative: no limit). A signal interrupting the wait does not end it.
  public static func isReadable(_ descriptor: Int32, waiting milliseconds: Int32) -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    while true {
      let ready = poll(&entry, 1, milliseconds)
      if ready < 0 && errno == EINTR { continue }
      return ready > 0
    }
  }
}
