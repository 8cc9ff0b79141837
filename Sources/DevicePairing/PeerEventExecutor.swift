import Dispatch

/// A task executor on a serial dispatch queue of its own: what reads a peer's event stream, so
/// that it runs even while every thread of Swift's cooperative pool is blocked.
final class PeerEventExecutor: TaskExecutor {
  private let queue = DispatchQueue(label: "local-peer-events")

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }
}
