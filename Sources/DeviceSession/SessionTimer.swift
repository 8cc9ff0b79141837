/// Calls a session back after a delay: how reply timeouts fire.
///
/// Injected so that the engine starts no threads or tasks of its own. An implementation must not
/// run its actions on Swift's cooperative thread pool: callers that block a cooperative thread
/// (a semaphore in an async context) would otherwise delay every timeout. `DevicePairing`'s
/// `DispatchSessionTimer` uses a dispatch queue.
public protocol SessionTimer: Sendable {
  /// Calls `action` once, `seconds` from now or soon after, on a thread of the timer's choosing.
  func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void)
}
