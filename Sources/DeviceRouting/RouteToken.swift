import Synchronization

/// A registration with a ``Router``: a catcher or a delegate, kept as long as the token is.
///
/// Stargate holds its catchers weakly, so a catcher goes away with its owner; here the owner
/// holds the token instead. Releasing the last reference to the token (its `deinit`) or calling
/// ``cancel()`` removes the registration, at once: a routing that starts afterwards does not see
/// it. Discarding the token (`_ = router.catchDeepLinks(…)`) therefore removes the catcher
/// straight away: keep it for as long as the catcher should catch.
public final class RouteToken: Sendable {
  private let removal: Mutex<(@Sendable () -> Void)?>

  init(removal: @escaping @Sendable () -> Void) { self.removal = Mutex(removal) }

  deinit { cancel() }

  /// Removes the registration; calling it again does nothing.
  public func cancel() {
    let remove = removal.withLock { removal in
      defer { removal = nil }
      return removal
    }
    remove?()
  }

  /// Whether the registration is still in place (neither cancelled nor released).
  public var isActive: Bool { removal.withLock { $0 != nil } }
}
