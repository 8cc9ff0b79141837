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

  /// The directory this node is or belongs to; `nil` for the pairs' nodes.
  public var directory: FileName? {
    switch self {
    case .directory(let path): return path
    case .mailbox(let directory, _): return directory
    case .pairs, .pair, .device: return nil
    }
  }

  /// The identifier, for a mailbox node.
  public var identifier: FileName? {
    if case .mailbox(_, let identifier) = self { return identifier }
    return nil
  }

  /// The pair's name, for a pair or device node.
  public var pairName: String? {
    switch self {
    case .pair(let name), .device(let name, _): return name
    case .directory, .mailbox, .pairs: return nil
    }
  }
}
