import MailboxModel

/// Where the dashboard's model events come from: the watcher of the wormhole directories
/// (``MailboxWatcherSource``), or a script in tests (``ScriptedEventSource``).
public protocol DashboardEventSource: AnyObject, Sendable {
  /// Begins reporting: what is there now first, then every change, each batch through
  /// `deliver`, from any thread, until ``cancel()``.
  func start(delivering deliver: @escaping @Sendable ([ModelEvent]) -> Void)
  /// Reads everything again and reports every difference (the loop dropped events).
  func rescan()
  /// Stops reporting; no `deliver` call starts after this returns.
  func cancel()
}
