import DeviceSession
import Synchronization

/// A ``DeviceLink`` the test drives: it records what the session sends and hands the session
/// whatever events the test writes, on the test's thread.
final class ScriptedLink: DeviceLink {
  /// Whether it takes transfers and contexts while the counterpart is away (as a broker does).
  let queuesWhileUnreachable: Bool

  init(queuesWhileUnreachable: Bool = false) { self.queuesWhileUnreachable = queuesWhileUnreachable }

  private let state = Mutex<
    (handler: (@Sendable (LinkEvent) -> Void)?, sent: [DeviceFrame], reachable: Bool)
  >(
    (nil, [], false))

  func start(_ handler: @escaping @Sendable (LinkEvent) -> Void) throws(LinkError) {
    state.withLock { $0.handler = handler }
  }

  func send(_ frame: DeviceFrame) -> Bool {
    state.withLock { state in
      let waits = queuesWhileUnreachable && frame.kind != .message && frame.kind != .reply
      guard state.reachable || waits else { return false }
      state.sent.append(frame)
      return true
    }
  }

  func stop() { state.withLock { $0.handler = nil } }

  /// The frames the session sent so far.
  var sent: [DeviceFrame] { state.withLock { $0.sent } }

  /// Hands the session `event` as the link's thread would.
  func deliver(_ event: LinkEvent) {
    let handler = state.withLock { state -> (@Sendable (LinkEvent) -> Void)? in
      if case .reachabilityChanged(let reachable) = event { state.reachable = reachable }
      return state.handler
    }
    handler?(event)
  }
}
