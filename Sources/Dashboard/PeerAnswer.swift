import ArchivedValues

/// An operator's answer to a peer's pending invitation (``DashboardEffect/answerInvitation(_:)``):
/// sent to the invited peer's control socket as `answer FROM accept|decline`.
public struct PeerAnswer: Sendable, Hashable {
  /// The invited peer's control socket.
  public var controlSocketPath: String
  /// The invited peer, `NAME#xxxx` (for messages).
  public var peer: String
  /// Who invited it, `NAME#xxxx` (the selector the peer resolves).
  public var from: String
  /// Accept (`true`) or decline.
  public var accepts: Bool

  /// `accept` or `decline`.
  public var word: String { accepts ? "accept" : "decline" }

  /// `accept of the invitation from B#0002 to A#0001`, escaped.
  public var operation: String {
    "\(word) of the invitation from \(DisplayText.field(from)) to \(DisplayText.field(peer))"
  }
}
