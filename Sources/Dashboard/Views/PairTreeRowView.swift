import ArchivedValues
import TerminalScreen

/// The rows of the pairs' branch of the tree: the branch, a pair ("phone ● watch ○", reachable
/// or not, how many transfers wait), and each device (activated, not activated or not running,
/// its pid, its contexts).
enum PairTreeRowView {
  static func draw(_ node: TreeNodeID, state: DashboardState, into screen: inout Screen, row: Int, area: Rect)
  {
    switch node {
    case .pairs:
      let count = " \(state.pairs.count) "
      let countWidth = TerminalWidth.columns(of: count)
      let folded = state.treePane.collapsedPairNodes.contains(.pairs)
      let x =
        area.x + screen.write((folded ? "▸" : "▾") + " pairs", row: row, column: area.x, role: "list.branch")
      screen.write(
        count, row: row, column: max(area.maxX - countWidth, x), limit: countWidth, role: "list.branch")
    case .pair(let name):
      guard let pair = state.pair(named: name) else { return }
      let reachable = pair.reachabilityText
      let queued = pair.queuedCount > 0 ? "  \(pair.queuedCount) queued" : ""
      let name =
        (state.treePane.collapsedPairNodes.contains(node) ? "▸ " : "▾ ") + DisplayText.field(pair.name)
      var text =
        "  " + name + "  phone " + mark(pair.phone) + " watch " + mark(pair.watch) + "  " + reachable + queued
      // A narrow pane keeps both marks, whether they reach each other and the queue.
      if TerminalWidth.columns(of: text) > area.width {
        let queued = pair.queuedCount > 0 ? " \(pair.queuedCount) queued" : ""
        text = "  " + name + " " + mark(pair.phone) + mark(pair.watch) + " " + reachable + queued
      }
      screen.write(
        text, row: row, column: area.x, limit: area.width, role: pair.isReachable ? "list" : "list.dim")
    case .device(let name, let role):
      guard let pair = state.pair(named: name) else { return }
      let device = pair.device(role)
      // The pid last: a narrow pane keeps the activation and the contexts.
      let pid = device.runningPID.flatMap { $0 == 0 ? nil : "  pid \($0)" } ?? ""
      // A link taken over or refused says so first: the activation alone would hide it.
      let denied = device.denial.map { $0.label + ", " } ?? ""
      let text =
        "    " + Formatting.padded(role.rawValue, 6) + denied + device.activationText + "  ctx "
        + identifiers(device.applicationContext) + "  recv " + identifiers(device.receivedContext) + pid
      let role: StyleRole =
        device.error != nil || device.denial != nil ? "list.error" : device.isActivated ? "list" : "list.dim"
      screen.write(text, row: row, column: area.x, limit: area.width, role: role)
    case .directory, .mailbox, .peers, .peerService, .peer, .machine, .remoteDirectory, .remoteMailbox:
      return
    }
  }

  /// `●` for an activated device, `◐` for one that runs but has not activated its session,
  /// `○` for one that is not running.
  private static func mark(_ device: PairSnapshot.Device) -> String {
    device.isActivated ? "●" : device.isRunning ? "◐" : "○"
  }

  /// The identifiers of a context, summarized: "-" when empty, the first two and how many more.
  private static func identifiers(_ entries: [PairSnapshot.ContextEntry]) -> String {
    guard !entries.isEmpty else { return "-" }
    let shown = entries.prefix(2).map { DisplayText.field($0.identifier) }.joined(separator: ",")
    return entries.count > 2 ? shown + " +\(entries.count - 2)" : shown
  }
}
