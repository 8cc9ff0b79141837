import ArchivedValues
import TerminalScreen

/// The rows of the peers' branch of the tree: the branch (how many peers run), a service type
/// (its peers, how many connected), and each peer (its state mark, `NAME#xxxx`, whether it
/// advertises, whom it is connected to, an invitation waiting).
enum PeerTreeRowView {
  static func draw(_ node: TreeNodeID, state: DashboardState, into screen: inout Screen, row: Int, area: Rect)
  {
    let folded = state.treePane.collapsedPairNodes.contains(node)
    switch node {
    case .peers:
      let count = " \(state.peers.count) "
      let countWidth = TerminalWidth.columns(of: count)
      let x =
        area.x + screen.write((folded ? "▸" : "▾") + " peers", row: row, column: area.x, role: "list.branch")
      screen.write(
        count, row: row, column: max(area.maxX - countWidth, x), limit: countWidth, role: "list.branch")
    case .peerService(let service):
      let members = state.peers.filter { $0.service == service }
      let connected = members.filter { !$0.connected.isEmpty }.count
      let text =
        "  " + (folded ? "▸ " : "▾ ") + DisplayText.field(service)
        + "  \(members.count) peer\(members.count == 1 ? "" : "s"), \(connected) connected"
      screen.write(text, row: row, column: area.x, limit: area.width, role: "list")
    case .peer:
      guard let peer = PeerContentsLines.peer(at: node, in: state.peers) else { return }
      let mark = !peer.connected.isEmpty ? "●" : !peer.invitations.isEmpty ? "◐" : "○"
      var text = "    " + mark + " " + DisplayText.field(peer.label)
      if peer.isAdvertising { text += "  adv" }
      if !peer.connected.isEmpty {
        text += "  ↔ " + peer.connected.map(PeerContentsLines.shownPeer).joined(separator: ",")
      }
      if !peer.invitations.isEmpty { text += "  \(peer.invitations.count) invited" }
      let role: StyleRole =
        peer.error != nil
        ? "list.error" : peer.connected.isEmpty && peer.invitations.isEmpty ? "list.dim" : "list"
      screen.write(text, row: row, column: area.x, limit: area.width, role: role)
    case .directory, .mailbox, .pairs, .pair, .device, .machine, .remoteDirectory, .remoteMailbox:
      return
    }
  }
}
