import WormholeVocabulary

/// A node of the dashboard's tree.
///
/// Branches are wormhole directories, then the pairs of simulated devices; simulator device
/// sets, the running peers, and the fleet's bridged machines (`--broker`) with their directories
/// and mailboxes.
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
  /// A bridged machine of the fleet (`--broker`), by name.
  case machine(String)
  /// A directory of a bridged machine, by its whole path there.
  case remoteDirectory(machine: String, path: FileName)
  /// One mailbox of a bridged machine's directory.
  case remoteMailbox(machine: String, directory: FileName, identifier: FileName)

  /// The directory this node is or belongs to; `nil` for the pairs' nodes.
  public var directory: FileName? {
    switch self {
    case .directory(let path): return path
    case .mailbox(let directory, _): return directory
    case .pairs, .pair, .device, .peers, .peerService, .peer, .machine, .remoteDirectory, .remoteMailbox:
      return nil
    }
  }

  /// The machine, for a node of the fleet's branch (a machine, its directory or mailbox).
  public var machineName: String? {
    switch self {
    case .machine(let name), .remoteDirectory(let name, _), .remoteMailbox(let name, _, _): return name
    case .directory, .mailbox, .pairs, .pair, .device, .peers, .peerService, .peer: return nil
    }
  }

  /// The identifier, for a mailbox node.
  public var identifier: FileName? {
    if case .mailbox(_, let identifier) = self { return identifier }
    return nil
  }

  /// The identifier, for a mailbox of a bridged machine.
  public var remoteIdentifier: FileName? {
    if case .remoteMailbox(_, _, let identifier) = self { return identifier }
    return nil
  }

  /// Whether the node is the peers' branch, a service type or a peer.
  public var isPeerNode: Bool {
    switch self {
    case .peers, .peerService, .peer: return true
    case .directory, .mailbox, .pairs, .pair, .device, .machine, .remoteDirectory, .remoteMailbox:
      return false
    }
  }

  /// The pair's name, for a pair or device node.
  public var pairName: String? {
    switch self {
    case .pair(let name), .device(let name, _): return name
    case .directory, .mailbox, .pairs, .peers, .peerService, .peer, .machine, .remoteDirectory,
      .remoteMailbox:
      return nil
    }
  }
}
