import ArchivedValues

/// The pairs of simulated devices inside the dashboard: their branch of the tree and what the
/// contents pane shows of a selected one.
extension DashboardState {
  /// Takes the pairs as they are now: the tree's branch follows, the selection stays on its node
  /// (or the row that held it when the pair is gone).
  mutating func applyPairs(_ pairs: [PairSnapshot]) {
    let sorted = pairs.sorted { $0.name < $1.name }
    let changed = sorted != self.pairs
    self.pairs = sorted
    updateTree(.pairs(sorted.map(\.name)))
    if changed, selection?.pairName != nil { clampContents() }
  }

  /// The pair named `name`, if there is one.
  public func pair(named name: String) -> PairSnapshot? { pairs.first { $0.name == name } }

  /// Asks before cancelling the queued transfer under the contents cursor of a selected device.
  mutating func confirmCancel(in pair: PairSnapshot) {
    if case .pair = selection {
      report("cancel: select the device whose transfer it is; its contents list its queue", isError: true)
      return
    }
    guard let selection,
      let (role, transfer) = PairContentsLines.transfer(onLine: contentsCursor, of: selection, pairs: pairs)
    else {
      report("cancel: put the contents cursor on a queued transfer to cancel it", isError: true)
      return
    }
    overlay = .confirm(
      Confirmation(
        question:
          "Cancel transfer #\(transfer.id) (\(DisplayText.field(transfer.identifier))) of "
          + "\(DisplayText.field(pair.name)) \(role.rawValue)? It is never delivered.",
        effect: .cancelTransfer(home: pair.home, pair: pair.name, role: role, id: transfer.id)))
  }

  /// The selected pair's device, when a device row is selected.
  public var selectedDevice: (pair: PairSnapshot, device: PairSnapshot.Device)? {
    guard case .device(let name, let role)? = selection, let pair = pair(named: name) else { return nil }
    return (pair, pair.device(role))
  }
}
