import ArchivedValues
import FleetModel
import TerminalScreen
import WormholeVocabulary

/// The fleet's rows of the tree: a bridged machine (its name, whether its bridge is online, its
/// mailboxes holding a message) and its directories (path and count). Names come from the
/// broker, so they are escaped and cut in their middle.
enum FleetTreeRowView {
  static func draw(_ node: TreeNodeID, state: DashboardState, into screen: inout Screen, row: Int, area: Rect)
  {
    switch node {
    case .machine(let name):
      let machine = state.fleet.machines[name]
      let collapsed = state.treePane.collapsedFleetNodes.contains(node)
      let presence = machine?.presence ?? .unknown
      let right =
        " \(presence == .online ? "online" : presence == .offline ? "OFFLINE" : "presence ?") \(machine?.presentCount ?? 0) "
      drawRow(
        (collapsed ? "▸ " : "▾ ") + "⇄ ", DisplayText.field(name), right: right,
        role: presence == .online ? "list.branch" : "list.dim",
        rightRole: presence == .offline ? "list.error" : "list.branch",
        into: &screen, row: row, area: area)
    case .remoteDirectory(let name, let path):
      let collapsed = state.treePane.collapsedFleetNodes.contains(node)
      let count = state.fleet.machines[name]?.presentCount(in: path) ?? 0
      drawRow(
        "  " + (collapsed ? "▸ " : "▾ "), DisplayText.name(path.lossyText), right: " \(count) ",
        role: "list.branch", rightRole: "list.branch", into: &screen, row: row, area: area)
    default: break
    }
  }

  private static func drawRow(
    _ lead: String, _ name: String, right: String, role: StyleRole, rightRole: StyleRole,
    into screen: inout Screen, row: Int, area: Rect
  ) {
    let rightWidth = TerminalWidth.columns(of: right)
    var x = area.x
    x += screen.write(lead, row: row, column: x, limit: max(area.maxX - x, 0), role: role)
    let room = max(area.maxX - x - rightWidth, 0)
    screen.write(
      Formatting.middleTruncated(name, toColumns: room), row: row, column: x, limit: room, role: role)
    screen.write(right, row: row, column: max(area.maxX - rightWidth, x), limit: rightWidth, role: rightRole)
  }
}
