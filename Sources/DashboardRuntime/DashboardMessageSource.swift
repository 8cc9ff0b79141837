import Dashboard

/// A source of dashboard messages other than the watcher's model events: the pairs of
/// simulated devices (``PairsSource``), a script in tests.
public protocol DashboardMessageSource: AnyObject, Sendable {
  /// Begins posting: what is there now first, then every change, from any thread, until
  /// ``cancel()``.
  func start(posting post: @escaping @Sendable (DashboardMessage) -> Void)
  /// Stops posting; no `post` call starts after this returns.
  func cancel()
}
