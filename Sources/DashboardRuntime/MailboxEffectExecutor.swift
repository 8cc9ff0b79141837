import Dashboard
import Dispatch
import MailboxWatcher

/// The real executor: writes through ``MailboxWatcher/MailboxOperations`` (so they are
/// journaled like anyone's), one at a time on a queue of its own, since a write may wait on a
/// lock; jobs that do not write (decoding a version for the contents pane) on a second queue,
/// so that a decode never waits behind a locked write, nor a write behind a large decode.
///
/// Read-only is decided here too, whatever the reducer did: a dashboard started with
/// `--read-only` gets an executor that refuses every job that writes, and says so.
public final class MailboxEffectExecutor: DashboardEffectExecutor {
  private let operations: MailboxOperations
  private let isReadOnly: Bool
  private let queue = DispatchQueue(label: "wormhole.dashboard.effects")
  private let readingQueue = DispatchQueue(label: "wormhole.dashboard.reads")

  /// An executor writing with `operations`, or refusing every write when `isReadOnly`.
  public init(operations: MailboxOperations = MailboxOperations(), isReadOnly: Bool) {
    self.operations = operations
    self.isReadOnly = isReadOnly
  }

  public func execute(_ job: EffectJob, report: @escaping @Sendable (DashboardMessage) -> Void) {
    guard !(isReadOnly && job.writes) else {
      report(.effectFinished(.failed(job.effect, Self.readOnlyRefusal)))
      return
    }
    let operations = operations
    (job.writes ? queue : readingQueue).async {
      report(job.perform(with: operations))
    }
  }

  public func waitUntilIdle() {
    queue.sync {}
    readingQueue.sync {}
  }

  /// Why a write was refused.
  public static let readOnlyRefusal = "read-only: nothing was written (started with --read-only)"
}
