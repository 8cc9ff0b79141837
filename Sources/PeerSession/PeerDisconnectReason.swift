/// Why a peer went (back) to `notConnected`.
public enum PeerDisconnectReason: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// The invitee declined the invitation.
  case declined = 1
  /// No answer came within the invitation's timeout.
  case timedOut = 2
  /// The two sessions together would hold more than ``PeerEngine/maximumPeers`` peers.
  case sessionFull = 3
  /// The link to the peer hung up (it stopped, or was killed).
  case hungUp = 4
  /// The peer left the session (`MCSession.disconnect()`).
  case left = 5
  /// The peer through which this one was reached went away.
  case separated = 6
  /// This peer left the session.
  case disconnected = 7

  public var description: String {
    switch self {
    case .declined: return "declined"
    case .timedOut: return "timed out"
    case .sessionFull: return "session full (at most \(PeerEngine.maximumPeers) peers)"
    case .hungUp: return "hung up"
    case .left: return "left the session"
    case .separated: return "the peer connecting it went away"
    case .disconnected: return "this peer left the session"
    }
  }
}
