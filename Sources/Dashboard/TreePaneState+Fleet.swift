/// The fleet's branch of the tree: bridged machines, their directories and mailboxes, after the
/// peers. Its rows are kept as a list (folds applied) with each node's row, rebuilt only when
/// the fleet's nodes or folds change, never per frame.
extension TreePaneState {
  /// Rebuilds the shown fleet rows from ``fleetNodes`` and ``collapsedFleetNodes``; folds of
  /// nodes that left are forgotten.
  mutating func refreshShownFleet() {
    let present = Set(fleetNodes)
    collapsedFleetNodes = collapsedFleetNodes.filter(present.contains)
    var shown: [TreeNodeID] = []
    shown.reserveCapacity(fleetNodes.count)
    var machineFolded = false
    var directoryFolded = false
    for node in fleetNodes {
      switch node {
      case .machine:
        machineFolded = collapsedFleetNodes.contains(node)
        directoryFolded = false
        shown.append(node)
      case .remoteDirectory:
        directoryFolded = collapsedFleetNodes.contains(node)
        if !machineFolded { shown.append(node) }
      default:
        if !machineFolded && !directoryFolded { shown.append(node) }
      }
    }
    shownFleetNodes = shown
    var rows: [TreeNodeID: Int] = [:]
    rows.reserveCapacity(shown.count)
    for (row, node) in shown.enumerated() { rows[node] = row }
    shownFleetRows = rows
  }

  /// Folds or unfolds a machine or a remote directory; returns whether `node` is one.
  mutating func toggleFleetFold(_ node: TreeNodeID) -> Bool {
    switch node {
    case .machine, .remoteDirectory: break
    default: return false
    }
    if collapsedFleetNodes.remove(node) == nil { collapsedFleetNodes.insert(node) }
    refreshShownFleet()
    return true
  }
}
