import WormholeVocabulary

/// A node of the dashboard's tree.
///
/// Branches are wormhole directories, then the pairs of simulated devices; simulator device
/// sets and remote machines become further cases (see the roadmap).
public enum TreeNodeID: Sendable, Hashable {
  /// A wormhole directory, by path.
  case directory(FileName)
  /// One mailbox of a directory.
  case mailbox(directory: FileName, identifier: FileName)
  /// The branch of the pairs of simulated devices.
  case pairs
  /// A pair, by name.
  case pair(String)
  /// One device of a pair.
  case device(pair: String, role: PairSnapshot.Role)
  /// The branch of the running simulated peers.
  case peers
  /// The peers of one service type.
  case peerService(String)
  /// One running peer, by service type and id.
  case peer(service: String, id: UInt64)

  /// The directory this node is or belongs to; `nil` for the pairs' nodes.
  public var directory: FileName? {
    switch self {
    case .directory(let path): return path
    case .mailbox(let directory, _): return directory
    case .pairs, .pair, .device, .peers, .peerService, .peer: return nil
    }
  }

  /// The identifier, for a mailbox node.
  public var identifier: FileName? {
    if case .mailbox(_, let identifier) = self { return identifier }
    return nil
  }

  /// Whether the node is the peers' branch, a service type or a peer.
  public var isPeerNode: Bool {
    switch self {
    case .peers, .peerService, .peer: return true
    case .directory, .mailbox, .pairs, .pair, .device: return false
    }
  }

  /// The pair's name, for a pair or device node.
  public var pairName: String? {
    switch self {
    case .pair(let name), .device(let name, _): return name
    case .directory, .mailbox, .pairs, .peers, .peerService, .peer: return nil
    }
  }
}
