import Dashboard
import Dispatch
import MailboxWatcher

/// The real executor: writes through ``MailboxWatcher/MailboxOperations`` (so they are
/// journaled like anyone's), one at a time on a queue of its own, since a write may wait on a
/// lock; sends to the pairs' devices and cancels of their transfers through ``PairOperations``
/// on a second, since they wait on the devices (a reply, an acknowledgement); jobs that do not
/// write (decoding a version for the contents pane) on a third, so that a decode never waits
/// behind a locked write, nor a write behind a large decode or a reply timeout.
///
/// Read-only is decided here too, whatever the reducer did: a dashboard started with
/// `--read-only` gets an executor that refuses every job that writes, and says so.
public final class MailboxEffectExecutor: DashboardEffectExecutor {
  private let operations: MailboxOperations
  private let pairs: any PairOperations
  private let isReadOnly: Bool
  private let queue = DispatchQueue(label: "wormhole.dashboard.effects")
  private let readingQueue = DispatchQueue(label: "wormhole.dashboard.reads")
  /// Sends to the pairs' devices wait for replies and acknowledgements (seconds): on a queue of
  /// their own, so that a mailbox write never waits behind a reply timeout.
  private let pairQueue = DispatchQueue(label: "wormhole.dashboard.pairs")

  /// An executor writing with `operations` to mailboxes and with `pairs` to the pairs'
  /// devices (session sends, cancels of queued transfers), or refusing every write when
  /// `isReadOnly`.
  public init(
    operations: MailboxOperations = MailboxOperations(), pairs: any PairOperations = DevicePairOperations(),
    isReadOnly: Bool
  ) {
    self.operations = operations
    self.pairs = pairs
    self.isReadOnly = isReadOnly
  }

  public func execute(_ job: EffectJob, report: @escaping @Sendable (DashboardMessage) -> Void) {
    guard !(isReadOnly && job.writes) else {
      report(.effectFinished(.failed(job.effect, Self.readOnlyRefusal)))
      return
    }
    let operations = operations
    let pairs = pairs
    let target: DispatchQueue
    switch job.effect {
    case .sessionSend, .cancelTransfer, .route, .answerInvitation, .peerSend, .peerCommand:
      target = pairQueue
    default: target = job.writes ? queue : readingQueue
    }
    target.async {
      report(job.perform(with: operations, pairs: pairs))
    }
  }

  public func waitUntilIdle() {
    queue.sync {}
    readingQueue.sync {}
    pairQueue.sync {}
  }

  /// Why a write was refused.
  public static let readOnlyRefusal = "read-only: nothing was written (started with --read-only)"
}
