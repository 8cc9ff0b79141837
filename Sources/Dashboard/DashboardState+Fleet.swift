import ArchivedValues
import FleetModel
import MailboxModel
import WormholeVocabulary

/// The fleet inside the dashboard (`--broker`): its branch of the tree, its traffic in the one
/// stream, and the remote actions, refused with the reason while the machine's bridge does not
/// accept them.
extension DashboardState {
  /// Starts showing the fleet of the broker at `address` (before its first message).
  public mutating func showFleet(broker address: String, historyDepth: Int) {
    brokerAddress = address
    brokerProblem = "connecting"
    fleet = FleetState(historyDepth: historyDepth)
  }

  /// Applies a batch of broker messages: the fleet's reducer checks each, the tree's branch is
  /// rebuilt once per batch when machines, directories or mailboxes appeared, traffic joins the
  /// stream, and dropped messages are counted (said once per batch).
  mutating func applyFleet(_ messages: [FleetMessage], at time: Int64) -> [DashboardEffect] {
    let change = fleet.apply(messages, at: time)
    guard !change.isEmpty else { return [] }
    if change.isStructural { updateTree(.fleet(fleetNodes(rebuilding: change.structuralMachines))) }
    if !change.traffic.isEmpty {
      let entries = model.appendRemoteTraffic(change.traffic)
      rate.record(entries.count, at: time)
      updateTraffic(.appended(entries))
      updateTraffic(.droppedFromFront)
    }
    if change.dropped > 0 {
      report(
        "broker: \(change.dropped) message\(change.dropped == 1 ? "" : "s") dropped (\(fleet.dropped) in all): "
          + (fleet.lastDropReason ?? "not a bridge's"), isError: true)
    }
    var selectedChanged = change.isStructural || change.machinesChanged
    if case .remoteMailbox(let machine, let directory, let identifier)? = selection,
      change.changedMailboxes[machine]?.contains(FleetMailboxKey(directory: directory, identifier: identifier))
        == true
    {
      selectedChanged = true
    }
    if selectedChanged { clampContents() }
    return change.changedMailboxes.isEmpty ? [] : [.wake(atMilliseconds: time + Self.highlightMilliseconds)]
  }

  mutating func fleetConnectionChanged(_ problem: String?) {
    guard problem != brokerProblem else { return }
    brokerProblem = problem
    if let problem {
      report("broker: " + DisplayText.escaped(problem), isError: true)
    } else if let brokerAddress {
      report("broker: connected to " + DisplayText.escaped(brokerAddress), isError: false)
    }
  }

  /// The fleet's nodes in tree order: machines by name, each with its directories by path and
  /// their mailboxes by identifier. Only the machines in `changed` are listed again; the others'
  /// nodes are kept from before (``fleetNodeCache``).
  mutating func fleetNodes(rebuilding changed: Set<String>) -> [TreeNodeID] {
    for name in changed {
      guard let machine = fleet.machines[name] else {
        fleetNodeCache[name] = nil
        continue
      }
      var nodes: [TreeNodeID] = [.machine(name)]
      for path in machine.directoryPaths {
        nodes.append(.remoteDirectory(machine: name, path: path))
        for identifier in (machine.directories[path] ?? [:]).keys.sorted() {
          nodes.append(.remoteMailbox(machine: name, directory: path, identifier: identifier))
        }
      }
      fleetNodeCache[name] = nodes
    }
    var nodes: [TreeNodeID] = []
    nodes.reserveCapacity(treePane.fleetNodes.count + 64)
    for name in fleet.machineNames { nodes += fleetNodeCache[name] ?? [] }
    return nodes
  }

  /// The machine whose node is selected in the tree, or whose traffic entry is selected in the
  /// traffic pane (with the focus there).
  var remoteTarget: FleetMachine? {
    let name =
      focus == .traffic
      ? trafficPane.selection.flatMap { model.trafficEntry($0)?.details.machine }
      : selection?.machineName
    return name.flatMap { fleet.machines[$0] ?? FleetMachine(name: $0) }
  }

  /// Why the actions that write are disabled where the focus is, because they would go to a
  /// bridged machine whose bridge does not accept them; `nil` when they are not remote or are
  /// allowed. Help and the footer show it as they show read-only.
  public var remoteWriteRefusal: String? { remoteTarget?.remoteWriteRefusal }

  /// Refuses an action that writes when it would go to a bridged machine: read-only first (the
  /// policy governs remote writes too), then the bridge's reason. Returns whether it refused.
  mutating func refuseRemoteWrite(_ action: DashboardAction) -> Bool {
    let verb: String
    switch action {
    case .pass: verb = "pass"
    case .clear: verb = "clear"
    case .clearAll: verb = "clear-all"
    case .replay: verb = "replay"
    case .route, .answerInvitation, .peerSend: verb = "that action"
    default: return false
    }
    guard let machine = remoteTarget else { return false }
    let name = DisplayText.field(machine.name)
    if isReadOnly {
      report("read-only: \(verb) on \(name) refused (\(readOnlyReason))", isError: true)
    } else if let refusal = machine.remoteWriteRefusal {
      report("\(verb) on \(name) refused: " + DisplayText.escaped(refusal), isError: true)
    } else {
      report("\(verb) on \(name) refused: remote writes are not supported by this dashboard yet", isError: true)
    }
    return true
  }
}
