import DevicePairing
import Dispatch
import Synchronization

/// The running processes a source watches through pidfds (``DeviceExitWatch`` on each one's
/// run lock), so that it reads again the moment one ends rather than at its next poll.
///
/// ``watch(running:onExit:)`` is called on the source's queue after each read, with the
/// processes the read found running; the sources on their pidfds run on that queue too.
final class ProcessExitWatches: Sendable {
  private let queue: DispatchQueue
  /// The watched processes, by run-lock path: the pid and the source on its pidfd.
  private let exits = Mutex<[String: ExitSource]>([:])

  /// A watched process: its pid and the read source on its pidfd. Dispatch sources are safe to
  /// cancel from any thread, though not marked `Sendable`.
  private struct ExitSource: @unchecked Sendable {
    var pid: Int32
    var source: any DispatchSourceRead
  }

  /// Watches whose pidfd sources run on `queue`.
  init(queue: DispatchQueue) {
    self.queue = queue
  }

  deinit {
    // An active source is not released with its last reference: cancel it, closing its pidfd.
    for exit in exits.withLock({ $0.values }) { exit.source.cancel() }
  }

  /// Watches every process of `running` (pid by run-lock path) not yet watched, and stops
  /// watching those that no longer run (or whose pid changed). `onExit` runs on the queue when
  /// a watched process ends; it is also scheduled at once when one ended since the read (its
  /// pidfd could not be opened and its lock is free or another's), since the read would show
  /// it until the next. On the source's queue.
  func watch(running: [String: Int32], onExit: @escaping @Sendable () -> Void) {
    let (ended, wanted) = exits.withLock { exits -> ([any DispatchSourceRead], [String]) in
      var ended: [any DispatchSourceRead] = []
      for (path, exit) in exits where running[path] != exit.pid {
        ended.append(exit.source)
        exits[path] = nil
      }
      return (ended, running.keys.filter { exits[$0] == nil }.sorted())
    }
    for source in ended { source.cancel() }
    var endedMeanwhile = false
    for path in wanted {
      guard let watch = DeviceExitWatch(runLockPath: path) else {
        // No pidfd: the process ended since the read (its lock is free or another's), or this
        // system has none (then the next read finds it gone).
        if RunLock.holder(at: path) != running[path] { endedMeanwhile = true }
        continue
      }
      let source = DispatchSource.makeReadSource(fileDescriptor: watch.descriptor, queue: queue)
      source.setEventHandler { [weak self] in
        guard let self else { return }
        let exit = self.exits.withLock { exits in
          defer { exits[path] = nil }
          return exits[path]
        }
        exit?.source.cancel()
        onExit()
      }
      // The watch (its descriptor) lives until the source no longer reads it.
      source.setCancelHandler { withExtendedLifetime(watch) {} }
      exits.withLock { $0[path] = ExitSource(pid: watch.pid, source: source) }
      source.resume()
    }
    if endedMeanwhile { queue.async(execute: onExit) }
  }

  /// Stops watching every process, closing the pidfds.
  func cancel() {
    let exits = exits.withLock { exits in
      defer { exits = [:] }
      return exits
    }
    for exit in exits.values { exit.source.cancel() }
  }
}
