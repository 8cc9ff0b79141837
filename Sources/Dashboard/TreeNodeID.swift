import WormholeVocabulary

/// A node of the dashboard's tree.
///
/// Branches are wormhole directories today; the tree is not tied to them: pairs of simulated
/// devices, simulator device sets and remote machines become further cases (see the roadmap).
public enum TreeNodeID: Sendable, Hashable {
  /// A wormhole directory, by path.
  case directory(FileName)
  /// One mailbox of a directory.
  case mailbox(directory: FileName, identifier: FileName)

  /// The directory this node is or belongs to.
  public var directory: FileName {
    switch self {
    case .directory(let path): return path
    case .mailbox(let directory, _): return directory
    }
  }

  /// The identifier, for a mailbox node.
  public var identifier: FileName? {
    if case .mailbox(_, let identifier) = self { return identifier }
    return nil
  }
}
