import ArchivedValues
import FleetModel
import TerminalScreen

/// The top line: what is watched, how much, how fast, and the last message (a result or a
/// notice of the model's) while it lasts; the log (`L`) keeps them all.
enum StatusLineView {
  static func draw(_ state: DashboardState, into screen: inout Screen, area: Rect) {
    screen.fill(area, role: "status")
    var x = area.x
    func put(_ text: String, _ role: StyleRole) {
      guard x < area.maxX else { return }
      x += screen.write(text, row: area.y, column: x, limit: area.maxX - x, role: role)
    }
    put(" wormhole-tui ", "title")
    let present = state.presentCount
    let roots = state.rootPaths.map { DisplayText.field($0) }.joined(separator: " ")
    put(" \(roots) ", "status")
    put("│ \(present) mailbox\(present == 1 ? "" : "es") ", "status")
    put("│ \(state.rate.perSecond)/s ", "status")
    if state.brokerAddress != nil {
      // The fleet: machines and how many are online; messages dropped as not a bridge's, counted.
      let machines = state.fleet.machineNames.count
      let online = state.fleet.machines.values.count { $0.presence == .online }
      put("│ \(machines) machine\(machines == 1 ? "" : "s") (\(online) online) ", "status")
      if state.brokerProblem != nil { put(" broker down ", "status.error") }
      if state.fleet.dropped > 0 { put(" \(state.fleet.dropped) dropped ", "status.error") }
    }
    if let frozen = state.frozen {
      put(" FROZEN \(frozen.newCount) new ", "traffic.badge")
    }
    if state.isReadOnly { put(" read-only ", "status.notice") }
    if let status = state.status {
      put("│ ", "status")
      let role: StyleRole = status.isError ? "status.error" : "status.notice"
      let hint = "… L"
      let room = area.maxX - x
      if TerminalWidth.columns(of: status.text) > room, room > TerminalWidth.columns(of: hint) + 4 {
        // Cut: the gist leads the message, and the log holds the rest.
        x += screen.write(
          status.text, row: area.y, column: x, limit: room - TerminalWidth.columns(of: hint), role: role)
        put(hint, "status")
      } else {
        put(status.text, role)
      }
    }
  }
}
