import Dashboard

/// A source of dashboard messages other than the watcher's model events: the pairs of
/// simulated devices (``PairsSource``), a script in tests.
public protocol DashboardMessageSource: AnyObject, Sendable {
  /// Begins posting: what is there now first, then every change, from any thread, until
  /// ``cancel()``.
  func start(posting post: @escaping @Sendable (DashboardMessage) -> Void)
  /// Stops posting; no `post` call starts after this returns.
  func cancel()
  /// The loop applied `count` more fleet messages (told whenever it applied some, and with 0
  /// at its start): a source that posts them may hold its next batches back while too many it
  /// posted wait. Other sources ignore it.
  func loopApplied(fleetMessages count: Int)
}

extension DashboardMessageSource {
  public func loopApplied(fleetMessages count: Int) {}
}
