import ArchivedValues

/// An operator's request to a running peer that is neither an answer nor a send
/// (``DashboardEffect/peerCommand(_:)``): leave its session, or cancel one of its resources in
/// flight. Sent to the peer's control socket as `disconnect` or `cancel ID`, as the verbs
/// `peer disconnect` and `peer cancel` do.
public struct PeerCommand: Sendable, Hashable {
  /// What to ask.
  public enum Request: Sendable, Hashable {
    /// Leave the session (`MCSession.disconnect()`): the others see it leave.
    case disconnect
    /// Cancel the resource `id` (`SENDERHEX/NUMBER`) named `name`.
    case cancel(id: String, name: String)
  }

  /// The peer's control socket.
  public var controlSocketPath: String
  /// The peer, `NAME#xxxx` (for messages).
  public var peer: String
  public var request: Request

  /// The control request's fields.
  public var fields: [String] {
    switch request {
    case .disconnect: return ["disconnect"]
    case .cancel(let id, _): return ["cancel", id]
    }
  }

  /// `disconnect` or `cancel`.
  public var word: String {
    switch request {
    case .disconnect: return "disconnect"
    case .cancel: return "cancel"
    }
  }

  /// `disconnect of alice#a11c`, `cancel of resource a11c/1 "notes" of alice#a11c`, escaped.
  public var operation: String {
    switch request {
    case .disconnect: return "disconnect of \(DisplayText.field(peer))"
    case .cancel(let id, let name):
      return
        "cancel of resource \(DisplayText.field(id)) \(DisplayText.field(name)) of \(DisplayText.field(peer))"
    }
  }
}
