import ArchivedValues
import FleetModel
import MailboxModel
import WormholeVocabulary

/// The fleet inside the dashboard (`--broker`): its branch of the tree, its traffic in the one
/// stream, and the remote actions, refused with the reason while the machine's bridge does not
/// accept them.
extension DashboardState {
  /// Starts showing the fleet of the broker at `address` (before its first message): its
  /// mailboxes keep `historyDepth` earlier versions each, and all of them the model's history
  /// byte budget (a budget of the fleet's own, beside the local one).
  public mutating func showFleet(broker address: String, historyDepth: Int) {
    brokerAddress = address
    brokerProblem = "connecting"
    fleet = FleetState(historyDepth: historyDepth, historyByteBudget: model.configuration.historyByteBudget)
  }

  /// The most broker messages one reduction applies: a batch beyond waits in the fleet's
  /// backlog, and the loop applies the next slice after it has answered the keys that came
  /// meanwhile (``isLoadingFleet``), so 5,000 retained messages at start never hold a key.
  public static let fleetSliceSize = 128

  /// Whether broker messages wait to be applied: the loop then takes keys without waiting and
  /// sends ``DashboardMessage/fleet(_:at:)`` with no message for the next slice.
  public var isLoadingFleet: Bool { fleet.backlogCount > 0 }

  /// Queues a batch of broker messages and applies the first slice (``fleetSliceSize``) of
  /// what waits: an empty batch applies the next slice. The fleet's reducer checks each, the
  /// tree's branch is rebuilt once per slice when machines, directories or mailboxes appeared or
  /// went, traffic joins the stream, dropped messages are counted (said once per slice), and a
  /// reload after a reconnection says what it forgot.
  mutating func applyFleet(_ messages: [FleetMessage], at time: Int64) -> [DashboardEffect] {
    fleet.enqueue(messages)
    let change = fleet.applyBacklog(limit: Self.fleetSliceSize, at: time)
    guard !change.isEmpty else { return [] }
    if let reload = change.reload { reportReload(reload) }
    // Under recency or activity a changed mailbox moves: its machine's rows are listed again.
    let reordered = sort == .name ? [] : Set(change.changedMailboxes.keys)
    if change.isStructural || !reordered.isEmpty {
      updateTree(.fleet(fleetNodes(rebuilding: change.structuralMachines.union(reordered))))
    }
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
      change.changedMailboxes[machine]?.contains(
        FleetMailboxKey(directory: directory, identifier: identifier))
        == true
    {
      selectedChanged = true
    }
    if selectedChanged { clampContents() }
    if change.machinesChanged || change.isStructural { refreshRemotePassForm() }
    var effects: [DashboardEffect] =
      change.changedMailboxes.isEmpty ? [] : [.wake(atMilliseconds: time + Self.highlightMilliseconds)]
    if change.isStructural || change.machinesChanged || !change.changedMailboxes.isEmpty,
      let due = scheduleFleetShortfallCheck(at: time)
    {
      effects.append(.wake(atMilliseconds: due))
    }
    return effects
  }

  /// How long the fleet's shortfalls must last before they are said: a retained burst still
  /// arriving (a bridge info before its mailboxes) is not one.
  public static let fleetShortfallMilliseconds: Int64 = 2_000

  /// After the fleet changed: when its shortfalls differ from those said, the time to judge
  /// them (a wake-up); `nil` when nothing is to judge or a judgement is already due.
  private mutating func scheduleFleetShortfallCheck(at time: Int64) -> Int64? {
    guard fleetShortfall.due == nil else { return nil }
    let shortfalls = fleet.shortfalls
    guard shortfalls != fleetShortfall.said else { return nil }
    if shortfalls.isEmpty {
      fleetShortfall.said = []
      return nil
    }
    let due = time + Self.fleetShortfallMilliseconds
    fleetShortfall.due = due
    return due
  }

  /// Says the fleet's shortfalls once they lasted (``fleetShortfallMilliseconds``): a broker
  /// drops a subscriber's messages beyond its queue without a word, so a machine whose bridge
  /// info claims more mailboxes than arrived is said (the status line and `L`), never shown as
  /// if it were whole.
  mutating func checkFleetShortfallIfDue() {
    guard let due = fleetShortfall.due, due <= now else { return }
    fleetShortfall.due = nil
    let shortfalls = fleet.shortfalls
    guard shortfalls != fleetShortfall.said else { return }
    fleetShortfall.said = shortfalls
    guard let first = shortfalls.first else { return }
    let more = shortfalls.count - 1
    report(
      "broker: " + first + (more > 0 ? " (and \(more) more machine\(more == 1 ? "" : "s") short)" : ""),
      isError: true)
  }

  /// Says what a reload of the fleet kept and forgot.
  private mutating func reportReload(_ reload: FleetReload) {
    var forgot: [String] = []
    if reload.machinesGone > 0 {
      forgot.append("\(reload.machinesGone) machine\(reload.machinesGone == 1 ? "" : "s") gone")
    }
    if reload.mailboxesGone > 0 {
      forgot.append("\(reload.mailboxesGone) mailbox\(reload.mailboxesGone == 1 ? "" : "es") gone")
    }
    if reload.machinesUnconfirmed > 0 {
      forgot.append(
        "\(reload.machinesUnconfirmed) without presence or bridge info until their bridges publish again")
    }
    report(
      "broker: the fleet was reloaded from what the broker holds: \(reload.machines) machine\(reload.machines == 1 ? "" : "s")"
        + (forgot.isEmpty ? ", nothing forgotten" : " (" + forgot.joined(separator: ", ") + ")")
        + (reload.endedByCounts
          ? "; every bridge's mailboxes came again"
          : reload.waitingFor.map { "; ended as the broker went quiet, still waiting for \($0)" } ?? ""),
      isError: !forgot.isEmpty)
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

  /// `s` changed the tree's order: every machine's mailboxes are listed again in it.
  mutating func fleetSortChanged() {
    guard !fleet.machines.isEmpty else { return }
    updateTree(.fleet(fleetNodes(rebuilding: Set(fleet.machines.keys))))
  }

  /// The fleet's nodes in tree order: machines by name, each with its directories by path and
  /// their mailboxes in the tree's order (``sort``: by identifier, most recently changed or most
  /// versions first, as local ones). Only the machines in `changed` are listed again; the
  /// others' nodes are kept from before (``fleetNodeCache``).
  mutating func fleetNodes(rebuilding changed: Set<String>) -> [TreeNodeID] {
    for name in changed {
      guard let machine = fleet.machines[name] else {
        fleetNodeCache[name] = nil
        continue
      }
      var nodes: [TreeNodeID] = [.machine(name)]
      for path in machine.directoryPaths {
        nodes.append(.remoteDirectory(machine: name, path: path))
        let mailboxes = (machine.directories[path] ?? [:]).values.sorted {
          MailboxOrder.precedes($0, $1, sort: sort)
        }
        for mailbox in mailboxes {
          nodes.append(.remoteMailbox(machine: name, directory: path, identifier: mailbox.identifier))
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

  /// What an action that writes does when it would go to a bridged machine, or `nil` when it
  /// is not remote. Refused with the reason while the machine's bridge takes no remote writes
  /// (read-only first: the policy governs remote writes too); else a clear and a clear-all ask
  /// first, a `:pass ID JSON` and a replay of the version under the history cursor (or of a
  /// remote traffic entry whose version is kept) go out as ``DashboardEffect/remoteWrite(_:)``
  /// (never from the view code). A replay names the journal record it repeats on that machine
  /// (the version's or the entry's sequence number), so its bridge journals a replay of it.
  mutating func remoteAction(_ action: DashboardAction) -> [DashboardEffect]? {
    let verb: String
    switch action {
    case .pass: verb = "pass"
    case .clear: verb = "clear"
    case .clearAll: verb = "clear-all"
    case .replay: verb = "replay"
    case .route, .answerInvitation, .peerSend: verb = "that action"
    default: return nil
    }
    guard let machine = remoteTarget else { return nil }
    let name = DisplayText.field(machine.name)
    func refuse(_ reason: String) -> [DashboardEffect] {
      report("\(verb) on \(name) refused: " + reason, isError: true)
      return []
    }
    if isReadOnly {
      report("read-only: \(verb) on \(name) refused (\(readOnlyReason))", isError: true)
      return []
    }
    if let refusal = machine.remoteWriteRefusal { return refuse(DisplayText.escaped(refusal)) }
    if case .pass(nil) = action, focus != .traffic {
      openRemotePassForm(on: machine)
      return []
    }
    guard focus != .traffic else {
      guard case .replay = action else {
        return refuse("select one of its mailboxes in the tree to write to it")
      }
      switch remoteReplayOfTrafficEntry(on: machine) {
      case .success(let write): return [.remoteWrite(write)]
      case .failure(let refusal): return refuse(refusal.reason)
      }
    }
    let place: (directory: FileName, identifier: FileName?)?
    switch selection {
    case .remoteMailbox(_, let directory, let identifier)?: place = (directory, identifier)
    case .remoteDirectory(_, let path)?: place = (path, nil)
    default: place = nil
    }
    guard let place else { return refuse("select one of its mailboxes") }
    switch action {
    case .clear(let named):
      var identifier = place.identifier
      if let named {
        if let problem = MessageIdentifier.problem(with: named) {
          return refuse("\(DisplayText.field(named)) is not an identifier: \(problem)")
        }
        identifier = FileName(named)
      }
      guard let identifier else { return refuse("select the mailbox to clear") }
      overlay = .confirm(
        Confirmation(
          question:
            "Clear \(identifier.displayField) on \(name)? Its bridge removes it from that machine's disk.",
          effect: .remoteWrite(
            RemoteWrite(.clear, machine: machine.name, directory: place.directory, identifier: identifier))
        ))
      return []
    case .pass(let request?):
      if let problem = MessageIdentifier.problem(with: request.identifier) {
        return refuse("\(DisplayText.field(request.identifier)) is not an identifier: \(problem)")
      }
      var value: ArchivedValue?
      if !request.value.isEmpty {
        do throws(JSONParseError) { value = try JSONParser().parse(request.value) } catch {
          return refuse("the value is not JSON: " + DisplayText.escaped(String(describing: error)))
        }
      }
      return [
        .remoteWrite(
          RemoteWrite(
            .pass, machine: machine.name, directory: place.directory,
            identifier: FileName(request.identifier),
            value: value))
      ]
    case .pass(nil):
      return refuse("select one of its mailboxes in the tree to pass there")
    case .replay:
      guard let identifier = place.identifier, let version = versionToReplay else {
        return refuse("select a version of one of its mailboxes (history)")
      }
      guard let bytes = version.bytes else {
        // The bridge keeps the version's bytes (up to 1 MiB) where this dashboard was not sent
        // them (above 256 KiB): it replays the record from its own history.
        guard let sequence = version.sequence else {
          return refuse(
            "the bridge did not send that version's archive, and it has no journal record to replay")
        }
        return [
          .remoteWrite(
            RemoteWrite(
              .replayRecord, machine: machine.name, directory: place.directory, identifier: identifier,
              replayOf: sequence))
        ]
      }
      return [
        .remoteWrite(
          RemoteWrite(
            .replay, machine: machine.name, directory: place.directory, identifier: identifier,
            archive: bytes,
            replayOf: version.sequence))
      ]
    case .clearAll:
      let count = machine.presentCount(in: place.directory)
      let path = DisplayText.name(place.directory.lossyText)
      overlay = .confirm(
        Confirmation(
          question:
            "Clear all \(count) mailboxes of \(path) on \(name)? Its bridge removes them from that machine's disk.",
          effect: .remoteWrite(
            RemoteWrite(.clearAll, machine: machine.name, directory: place.directory, identifier: nil))))
      return []
    default:
      return refuse("only pass, clear, clear-all and replay travel to a bridged machine")
    }
  }

  /// `p` on a bridged machine, one of its directories or mailboxes (whose bridge takes remote
  /// writes): the pass form for that machine, its directory and identifier taken from the
  /// selection. Should the bridge stop taking them while the form is open (read-only, offline,
  /// its info gone), the form says why and Enter passes nothing (``refreshRemotePassForm()``).
  private mutating func openRemotePassForm(on machine: FleetMachine) {
    let directory: FileName?
    var identifier = ""
    switch selection {
    case .remoteMailbox(_, let path, let name)?:
      directory = path
      identifier = name.lossyText
    case .remoteDirectory(_, let path)?: directory = path
    default: directory = machine.directoryPaths.first
    }
    overlay = .pass(
      PassForm(
        remote: PassForm.RemoteTarget(machine: machine.name, refusal: remotePassRefusal(machine.name)),
        directories: machine.directoryPaths, directory: directory, identifier: identifier))
  }

  /// Why a remote write to `machine` is refused now (read-only first), `nil` when it is not.
  private func remotePassRefusal(_ machine: String) -> String? {
    if isReadOnly { return "read-only (\(readOnlyReason))" }
    return (fleet.machines[machine] ?? FleetMachine(name: machine)).remoteWriteRefusal.map(
      DisplayText.escaped)
  }

  /// The open remote pass form follows its machine: its refusal (or none) as the fleet now says.
  private mutating func refreshRemotePassForm() {
    guard case .pass(var form)? = overlay, let remote = form.remote else { return }
    let refusal = remotePassRefusal(remote.machine)
    guard refusal != remote.refusal else { return }
    form.refuse(refusal)
    overlay = .pass(form)
  }

  /// A remote write that a form or a confirmation asks for, checked again when it is sent: its
  /// bridge may have stopped taking remote writes since (gone offline, read-only after a
  /// restart). Any other effect passes.
  /// (Read-only is ``update(_:)``'s to refuse, as for every write.)
  mutating func checkedRemoteEffect(_ effect: DashboardEffect) -> [DashboardEffect] {
    guard case .remoteWrite(let write) = effect,
      let refusal = (fleet.machines[write.machine] ?? FleetMachine(name: write.machine)).remoteWriteRefusal
    else { return [effect] }
    report("\(write.description) refused: " + DisplayText.escaped(refusal), isError: true)
    return []
  }

  /// Why a remote write is not sent.
  struct RemoteRefusal: Error {
    var reason: String
  }

  /// `r` on a bridged machine's traffic entry: the version of its mailbox that the entry's
  /// record wrote (the same journal sequence number), when this dashboard still keeps it with its
  /// archive, sent back as a replay of that record; otherwise a record replay, which the bridge
  /// resolves from its own history (it says what it replayed, or the nearest version it keeps).
  private func remoteReplayOfTrafficEntry(on machine: FleetMachine) -> Result<RemoteWrite, RemoteRefusal> {
    guard let id = trafficPane.selection ?? trafficIdentifiers.last, let entry = model.trafficEntry(id) else {
      return .failure(RemoteRefusal(reason: "no traffic entry to replay"))
    }
    guard entry.carriesMessage else {
      return .failure(RemoteRefusal(reason: "a \(entry.kind.rawValue) entry carries no message to replay"))
    }
    guard let sequence = entry.sequence else {
      return .failure(
        RemoteRefusal(
          reason: "the entry has no journal record to replay (replay its mailbox's version: history)"))
    }
    let mailbox = fleet.mailbox(entry.identifier, in: entry.directory, machine: machine.name)
    let kept = (mailbox?.history ?? []) + (mailbox?.current.map { [$0] } ?? [])
    guard let bytes = kept.last(where: { $0.sequence == sequence })?.bytes else {
      return .success(
        RemoteWrite(
          .replayRecord, machine: machine.name, directory: entry.directory, identifier: entry.identifier,
          replayOf: sequence))
    }
    return .success(
      RemoteWrite(
        .replay, machine: machine.name, directory: entry.directory, identifier: entry.identifier,
        archive: bytes, replayOf: sequence))
  }
}
