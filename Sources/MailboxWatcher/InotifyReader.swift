import Dispatch
import Glibc
import Inotify
import Synchronization
import SystemThreads
import WakeSignal

/// The thread that waits for an inotify instance to become readable and then runs a read on the
/// watcher's serial queue, with `queue.sync`: on this thread when the queue is idle, so a batch
/// costs no hand-off between threads.
///
/// A `DispatchSourceRead` on the descriptor did the same at a cost per event, not per batch:
/// libdispatch keeps the descriptor armed in its epoll set while the handler runs, so each event
/// queued meanwhile (each rename of a burst) woke its manager thread, which found nothing left to
/// read (the handler had read it) and slept again: an eighth of the bridge's CPU per mailbox
/// change (`wormhole-bench broker`). Here nothing waits on the descriptor while a batch is read
/// and applied: what comes meanwhile is read with the next batch.
///
/// The thread holds the instance (so its descriptor is not closed and reused under `poll`) until
/// it ends: at ``stop()``, or when the read reports that it is done (cancelled).
final class InotifyReader: @unchecked Sendable {
  /// Only its descriptor is used on the thread (the reads happen on the watcher's queue).
  private let inotify: Inotify
  private let wake: WakePipe
  private let queue: DispatchQueue
  private let read: @Sendable () -> Bool
  private let isStopped = Atomic(false)

  /// An instance's reader; `read` will run on `queue` whenever the descriptor is readable, until
  /// it returns `false`. `nil` when no pipe could be made.
  init?(inotify: Inotify, queue: DispatchQueue, read: @escaping @Sendable () -> Bool) {
    guard let wake = try? WakePipe() else { return nil }
    self.inotify = inotify
    self.wake = wake
    self.queue = queue
    self.read = read
  }

  /// Starts the thread (which holds this reader until it ends); whether one could be made.
  func start() -> Bool {
    SystemThread.detach { self.run() }
  }

  /// Ends the thread soon, from any thread, without waiting for it; no read starts after its
  /// next wake-up.
  func stop() {
    isStopped.store(true, ordering: .sequentiallyConsistent)
    wake.signal()
  }

  private func run() {
    var entries = [
      pollfd(fd: inotify.fileDescriptor, events: Int16(POLLIN), revents: 0),
      pollfd(fd: wake.readDescriptor, events: Int16(POLLIN), revents: 0),
    ]
    while !isStopped.load(ordering: .sequentiallyConsistent) {
      let ready = poll(&entries, 2, -1)
      if ready < 0 {
        if errno == EINTR { continue }
        return
      }
      guard !isStopped.load(ordering: .sequentiallyConsistent) else { return }
      if entries[1].revents != 0 { wake.drain() }
      guard entries[0].revents != 0 else { continue }
      guard queue.sync(execute: read) else { return }
    }
  }
}
