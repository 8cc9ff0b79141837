import ArchivedValues
import TerminalScreen

/// The rows of the pairs' branch of the tree: the branch, a pair ("phone ● watch ○", reachable
/// or not, how many transfers wait), and each device (running or not, its contexts).
enum PairTreeRowView {
  static func draw(_ node: TreeNodeID, state: DashboardState, into screen: inout Screen, row: Int, area: Rect)
  {
    switch node {
    case .pairs:
      let count = " \(state.pairs.count) "
      let countWidth = TerminalWidth.columns(of: count)
      let x = area.x + screen.write("▾ pairs", row: row, column: area.x, role: "list.branch")
      screen.write(
        count, row: row, column: max(area.maxX - countWidth, x), limit: countWidth, role: "list.branch")
    case .pair(let name):
      guard let pair = state.pair(named: name) else { return }
      var text =
        "  " + DisplayText.field(pair.name) + "  phone " + mark(pair.phone) + " watch " + mark(pair.watch)
      text += pair.isReachable ? "  reachable" : "  not reachable"
      if pair.queuedCount > 0 { text += "  \(pair.queuedCount) queued" }
      screen.write(
        text, row: row, column: area.x, limit: area.width, role: pair.isReachable ? "list" : "list.dim")
    case .device(let name, let role):
      guard let pair = state.pair(named: name) else { return }
      let device = pair.device(role)
      var text = "    " + Formatting.padded(role.rawValue, 6) + PairContentsLines.running(device)
      text +=
        "  ctx " + identifiers(device.applicationContext) + "  recv " + identifiers(device.receivedContext)
      if !device.queuedTransfers.isEmpty { text += "  \(device.queuedTransfers.count) queued" }
      let role: StyleRole = device.error != nil ? "list.error" : device.isRunning ? "list" : "list.dim"
      screen.write(text, row: row, column: area.x, limit: area.width, role: role)
    case .directory, .mailbox:
      return
    }
  }

  /// `●` for a running device, `○` for one that is not.
  private static func mark(_ device: PairSnapshot.Device) -> String { device.isRunning ? "●" : "○" }

  /// The identifiers of a context, summarized: "-" when empty, the first two and how many more.
  private static func identifiers(_ entries: [PairSnapshot.ContextEntry]) -> String {
    guard !entries.isEmpty else { return "-" }
    let shown = entries.prefix(2).map { DisplayText.field($0.identifier) }.joined(separator: ",")
    return entries.count > 2 ? shown + " +\(entries.count - 2)" : shown
  }
}
