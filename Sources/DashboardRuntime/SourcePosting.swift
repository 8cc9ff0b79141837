import Dashboard
import Synchronization

/// The part of a message source's state that ``DashboardMessageSource/start(posting:)`` sets:
/// where its messages go, and whether it started already (a second start only changes where).
protocol SourcePosting {
  /// Where messages go; `nil` once cancelled.
  var post: (@Sendable (DashboardMessage) -> Void)? { get set }
  /// Whether the source started.
  var started: Bool { get set }
}

extension Mutex where Value: SourcePosting {
  /// Keeps `post` as where messages go, and says whether this is the source's first start
  /// (then the caller starts its work; otherwise it runs already).
  func startPosting(_ post: @escaping @Sendable (DashboardMessage) -> Void) -> Bool {
    withLock { state in
      state.post = post
      defer { state.started = true }
      return !state.started
    }
  }
}
