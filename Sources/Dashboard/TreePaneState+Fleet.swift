import WormholeVocabulary

/// The fleet's branch of the tree: bridged machines, their directories and mailboxes, after the
/// peers. Its rows are kept as a list (folds and the `/` filter applied) with each node's row,
/// rebuilt only when the fleet's nodes, folds or the filter change, never per frame.
///
/// The filter is the local mailboxes' (``filter``): a remote mailbox shows when its identifier
/// passes, matched within the same bounded pass (``PaneFilter``'s limits and budget), and each
/// identifier's answer is kept until the filter changes, so a slice of broker messages matches
/// only the identifiers it brought. Machines and their directories always show.
extension TreePaneState {
  /// A new pass of the filter (it changed, or the local tree was filtered again): every remote
  /// identifier is matched again, in the pass the local mailboxes began.
  mutating func refilterFleet() {
    fleetFilterDecisions = [:]
    refreshShownFleet()
  }

  /// Rebuilds the shown fleet rows from ``fleetNodes`` and ``collapsedFleetNodes``; folds of
  /// nodes that left are forgotten.
  mutating func refreshShownFleet() {
    // A new slice of the fleet goes on with the filter's pass, its time limit started again.
    filter?.continuePass()
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
      case .remoteMailbox(_, _, let identifier):
        if !machineFolded && !directoryFolded && admitsRemote(identifier) { shown.append(node) }
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

  /// Whether a remote mailbox named `identifier` passes the filter, matched once per pass: one
  /// the pass could not decide (cut off, not tried) hides the mailbox and is counted in the
  /// filter's notice once, until a new pass (``refilterFleet()``) tries it again.
  private mutating func admitsRemote(_ identifier: FileName) -> Bool {
    guard filter != nil else { return true }
    if let known = fleetFilterDecisions[identifier] { return known }
    let passes = filter?.admits(identifier.lossyText) ?? true
    fleetFilterDecisions[identifier] = passes
    return passes
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
