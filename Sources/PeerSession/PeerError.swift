import ArchivedValues

/// What a peer-engine operation can fail with. Names inside are escaped in the description.
public enum PeerError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The engine has not been started.
  case notStarted
  /// The engine was stopped; a new run is a new engine.
  case stopped
  /// The peers named are not connected to this session.
  case notConnected([PeerIdentity])
  /// The peer has not been found by browsing (or was lost since).
  case notFound(PeerIdentity)
  /// The peer is already connected.
  case alreadyConnected(PeerIdentity)
  /// An invitation to or from the peer is already pending.
  case alreadyConnecting(PeerIdentity)
  /// The session would hold more than ``PeerEngine/maximumPeers`` peers.
  case sessionFull(limit: Int)
  /// No invitation from the peer with this id is waiting for an answer.
  case invitationNotPending(PeerIdentity, id: UInt64)
  /// No resource transfer with this id is in progress.
  case resourceNotFound(PeerResourceID)
  /// The data is larger than a frame carries.
  case payloadTooLarge(bytes: Int, limit: Int)
  /// No peers were named.
  case noPeers
  /// A resource's bytes could not be read or stored.
  case storage(String)
  /// The link could not start.
  case linkUnavailable(String)

  public var description: String {
    switch self {
    case .notStarted: return "the peer is not started"
    case .stopped: return "the peer was stopped: a new run is a new peer, with a new identity"
    case .notConnected(let peers):
      return "not connected: \(peers.map(\.description).joined(separator: ", ")); invite them first"
    case .notFound(let peer): return "peer \(peer) has not been found: browse for its service first"
    case .alreadyConnected(let peer): return "peer \(peer) is already connected"
    case .alreadyConnecting(let peer): return "an invitation to or from peer \(peer) is already pending"
    case .sessionFull(let limit):
      return "the session is full: at most \(limit) peers, this one included (kMCSessionMaximumNumberOfPeers)"
    case .invitationNotPending(let peer, let id):
      return "no invitation \(id) from peer \(peer) is waiting for an answer"
    case .resourceNotFound(let id): return "no resource transfer \(id) is in progress"
    case .payloadTooLarge(let bytes, let limit):
      return "the data is \(bytes) bytes; at most \(limit) fit a frame"
    case .noPeers: return "no peers were named to send to"
    case .storage(let reason): return "the resource storage failed: \(DisplayText.escaped(reason))"
    case .linkUnavailable(let reason): return "the peer link could not start: \(DisplayText.escaped(reason))"
    }
  }
}
