import Dashboard
import Synchronization

/// The state of a message source that reads in a poll chain and posts only what changed: the
/// pairs and the peers sources, each with the snapshot one read gives. A read brought forward
/// (a watched process ended) starts a new chain, and the old chain's next read does nothing.
struct PollingSourceState<Snapshot: Equatable & Sendable>: SourcePosting {
  var post: (@Sendable (DashboardMessage) -> Void)?
  var started = false
  /// What was posted last, `nil` before the first post.
  var last: Snapshot?
  /// The poll chain that may run.
  var generation: UInt64 = 0
}

extension Mutex {
  /// Whether the chain `generation` may read: the source is not cancelled and no newer chain
  /// started.
  func mayPoll<Snapshot>(_ generation: UInt64) -> Bool where Value == PollingSourceState<Snapshot> {
    withLock { $0.post != nil && $0.generation == generation }
  }

  /// Starts a new poll chain (the old one's next read does nothing) and gives its generation.
  func startChain<Snapshot>() -> UInt64 where Value == PollingSourceState<Snapshot> {
    withLock { state in
      state.generation &+= 1
      return state.generation
    }
  }

  /// Where to post `snapshot`: `nil` when the source is cancelled or `snapshot` is what it
  /// posted last; otherwise `snapshot` is now the last one posted.
  func posting<Snapshot>(ifChanged snapshot: Snapshot) -> (@Sendable (DashboardMessage) -> Void)?
  where Value == PollingSourceState<Snapshot> {
    withLock { state in
      guard let post = state.post, state.last != snapshot else { return nil }
      state.last = snapshot
      return post
    }
  }
}
