import Dashboard

/// Runs the work the loop must not wait for (writes to mailboxes, decodes of the versions the
/// contents pane shows, and whatever else may block) and reports how it ended as a message:
/// ``Dashboard/DashboardMessage/effectFinished(_:)``, or ``Dashboard/DashboardMessage/decoded(serial:_:)``
/// for a decode.
///
/// ``MailboxEffectExecutor`` is the real one. The loop calls ``execute(_:report:)`` from its
/// own thread; `report` may be called from any thread, once per job.
public protocol DashboardEffectExecutor: Sendable {
  /// Starts `job` off the loop; calls `report` once with the message that says how it ended.
  func execute(_ job: EffectJob, report: @escaping @Sendable (DashboardMessage) -> Void)
  /// Returns once every job started so far has reported.
  func waitUntilIdle()
}
