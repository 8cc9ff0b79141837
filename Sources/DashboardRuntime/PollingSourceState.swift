import Dashboard
import Synchronization

/// The state of a message source that reads in a poll chain and posts only what changed: the
/// pairs and the peers sources. A read brought forward (a watched process ended) starts a new
/// chain, and the old chain's next read does nothing.
protocol PollingSourceState: SourcePosting {
  /// What one read gives.
  associatedtype Snapshot: Equatable & Sendable
  /// What was posted last, `nil` before the first post.
  var last: Snapshot? { get set }
  /// The poll chain that may run.
  var generation: UInt64 { get set }
}

extension Mutex where Value: PollingSourceState {
  /// Whether the chain `generation` may read: the source is not cancelled and no newer chain
  /// started.
  func mayPoll(_ generation: UInt64) -> Bool {
    withLock { $0.post != nil && $0.generation == generation }
  }

  /// Starts a new poll chain (the old one's next read does nothing) and gives its generation.
  func startChain() -> UInt64 {
    withLock { state in
      state.generation &+= 1
      return state.generation
    }
  }

  /// Where to post `snapshot`: `nil` when the source is cancelled or `snapshot` is what it
  /// posted last; otherwise `snapshot` is now the last one posted.
  func posting(ifChanged snapshot: Value.Snapshot) -> (@Sendable (DashboardMessage) -> Void)? {
    withLock { state in
      guard let post = state.post, state.last != snapshot else { return nil }
      state.last = snapshot
      return post
    }
  }
}
