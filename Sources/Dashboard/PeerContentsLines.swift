import ArchivedValues
import MailboxModel
import TerminalScreen

/// What the contents pane shows for the peers' nodes of the tree: the branch (how many peers
/// run, by service type), a service type (its peers and who is connected to whom) and a peer
/// (its state, discovery info, found and connected peers, pending invitations with the keys
/// that answer them, and its recent traffic: data with mode, size and targets, drops, resources).
enum PeerContentsLines {
  /// The most traffic entries shown for a peer.
  static let trafficLimit = 12

  /// Another peer as a peer's `status` names it: its identity as that peer wrote it, escaped and
  /// quoted already (`PeerIdentity`'s description), so shown as it came rather than quoted and
  /// escaped again; whatever a terminal would act on is still escaped (a status is another
  /// process's text).
  static func shownPeer(_ named: String) -> String { DisplayText.escaped(named) }

  /// The lines for `node`; none for a node that is not a peer node.
  static func lines(for node: TreeNodeID, peers: [PeerSnapshot], traffic: [TrafficEntry], now: Int64)
    -> [ContentLine]
  {
    var lines: [ContentLine] = []
    func keyed(_ key: String, _ value: String, indent: Int = 0, role: StyleRole = "contents") {
      lines.append(
        ContentLine(indent: indent, [.init(Formatting.padded(key, 11), "contents.key"), .init(value, role)]))
    }
    func title(_ text: String) { lines.append(ContentLine([.init(text, "contents.key")])) }
    func row(indent: Int = 2, _ pieces: ContentLine.Piece...) {
      lines.append(ContentLine(indent: indent, pieces))
    }
    func none() { row(.init("none", "list.dim")) }
    /// `NAME (COUNT)`, then each item's rows; an empty list says `none`, or is left out.
    func list<Item>(_ name: String, _ items: [Item], leftOutWhenEmpty: Bool = false, _ rows: (Item) -> Void) {
      if items.isEmpty && leftOutWhenEmpty { return }
      title("\(name) (\(items.count))")
      items.forEach(rows)
      if items.isEmpty { none() }
    }
    switch node {
    case .peers:
      keyed("peers", "\(peers.count) running")
      let services = Array(Set(peers.map(\.service))).sorted()
      for service in services {
        let count = peers.filter { $0.service == service }.count
        keyed("service", DisplayText.field(service) + "  \(count) peer" + (count == 1 ? "" : "s"))
      }
    case .peerService(let service):
      let members = peers.filter { $0.service == service }
      keyed("service", DisplayText.field(service))
      keyed("peers", "\(members.count) running")
      title("connections")
      for peer in members {
        let connected =
          peer.connected.isEmpty
          ? "not connected" : "↔ " + peer.connected.map(Self.shownPeer).joined(separator: ", ")
        row(
          .init(Formatting.padded(DisplayText.field(peer.label), 18), "contents.key"),
          .init(connected, peer.connected.isEmpty ? "list.dim" : "contents"))
      }
      if members.isEmpty { none() }
    case .peer:
      guard let peer = Self.peer(at: node, in: peers) else {
        return [.text("This peer no longer runs.", "list.dim")]
      }
      keyed("peer", DisplayText.field(peer.label))
      keyed("service", DisplayText.field(peer.service))
      keyed("state", peer.stateText + (peer.pid > 0 ? ", pid \(peer.pid)" : ""))
      keyed("advertises", peer.isAdvertising ? "yes" : "no")
      if let error = peer.error { keyed("error", DisplayText.escaped(error), role: "list.error") }
      title("discovery info")
      for key in peer.info.keys.sorted() {
        keyed(DisplayText.field(key), DisplayText.field(peer.info[key] ?? ""), indent: 2)
      }
      if peer.info.isEmpty { none() }
      list("connected", peer.connected) { row(.init(Self.shownPeer($0), "contents")) }
      list("found", peer.found) { row(.init(Self.shownPeer($0), "contents")) }
      list("invitations waiting", peer.invitations) { invitation in
        row(
          .init("from " + Self.shownPeer(invitation.peer), "traffic.incoming"),
          .init("  a accept · x decline", "list.dim"))
        if let context = invitation.context {
          row(indent: 6, .init("context " + DisplayText.escaped(context), "contents"))
        }
      }
      list("resources in flight", peer.resources, leftOutWhenEmpty: true) { resource in
        row(
          .init(heading(of: resource), resource.isSending ? "traffic.passed" : "traffic.incoming"),
          .init("  " + DisplayText.field(resource.id) + "  C cancel", "list.dim"))
        row(
          indent: 6, .init(bar(resource.fraction), "contents.key"),
          .init(
            "  \(Int(resource.fraction * 100))%  \(Formatting.size(Int(clamping: resource.bytes))) of "
              + Formatting.size(Int(clamping: resource.total)), "contents"))
      }
      list("went away", peer.departures, leftOutWhenEmpty: true) { departure in
        row(
          .init(Formatting.padded(Self.shownPeer(departure.peer), 18), "contents"),
          .init("notConnected (" + DisplayText.escaped(departure.reason) + ")", "list.dim"))
      }
      trafficLines(of: peer, traffic: traffic, now: now, into: &lines)
    case .directory, .mailbox, .pairs, .pair, .device, .machine, .remoteDirectory, .remoteMailbox:
      break
    }
    return lines
  }

  /// The peer `node` selects, when it is a peer node and the peer still runs.
  static func peer(at node: TreeNodeID, in peers: [PeerSnapshot]) -> PeerSnapshot? {
    guard case .peer(let service, let id) = node else { return nil }
    return peers.first { $0.service == service && $0.id == id }
  }

  /// The invitation a key answers on the peer selected: the one under the contents cursor, or
  /// the only one; `nil` when there is none or the cursor does not pick one of several.
  static func invitation(onLine line: Int, of node: TreeNodeID, peers: [PeerSnapshot])
    -> (peer: PeerSnapshot, invitation: PeerSnapshot.Invitation)?
  {
    item(of: \.invitations, onLine: line, of: node, peers: peers) { shown, peer in
      guard line >= 0, line < shown.count, let first = shown[line].pieces.first?.text,
        first.hasPrefix("from ")
      else { return nil }
      return peer.invitations.first { "from " + Self.shownPeer($0.peer) == first }
    }.map { ($0.peer, $0.item) }
  }

  /// The cells of a progress bar.
  static let barWidth = 20

  /// `[████████░░░░░░░░░░░░]` for `fraction` (0 to 1).
  static func bar(_ fraction: Double) -> String {
    let filled = max(0, min(barWidth, Int((fraction * Double(barWidth)).rounded(.down))))
    return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
      + "]"
  }

  /// `↑ notes.bin → bob#2b0b` (sending) or `↓ notes.bin ← bob#2b0b` (receiving), escaped.
  static func heading(of resource: PeerSnapshot.Resource) -> String {
    (resource.isSending ? "↑ " : "↓ ") + DisplayText.field(resource.name)
      + (resource.isSending ? " → " : " ← ") + Self.shownPeer(resource.peer)
  }

  /// The resource a key cancels on the peer selected: the one whose lines the contents cursor
  /// is on, or the only one; `nil` when there is none or the cursor does not pick one of several.
  static func resource(onLine line: Int, of node: TreeNodeID, peers: [PeerSnapshot])
    -> (peer: PeerSnapshot, resource: PeerSnapshot.Resource)?
  {
    item(of: \.resources, onLine: line, of: node, peers: peers) { shown, peer in
      // The heading, or the bar below it.
      for index in [line, line - 1] where index >= 0 && index < shown.count {
        guard let first = shown[index].pieces.first?.text else { continue }
        if let resource = peer.resources.first(where: { heading(of: $0) == first }) { return resource }
      }
      return nil
    }.map { ($0.peer, $0.item) }
  }

  /// The one of the selected peer's `items` that a key acts on: the only one, or the one
  /// `pick` finds from the peer's contents lines at the cursor; `nil` when the peer has none.
  private static func item<Item>(
    of items: KeyPath<PeerSnapshot, [Item]>, onLine line: Int, of node: TreeNodeID, peers: [PeerSnapshot],
    pick: (_ shown: [ContentLine], _ peer: PeerSnapshot) -> Item?
  ) -> (peer: PeerSnapshot, item: Item)? {
    guard let peer = Self.peer(at: node, in: peers), let first = peer[keyPath: items].first else {
      return nil
    }
    if peer[keyPath: items].count == 1 { return (peer, first) }
    return pick(lines(for: node, peers: peers, traffic: [], now: 0), peer).map { (peer, $0) }
  }

  /// The newest traffic entries of the peer's journal: kind, mode, size, the other side(s),
  /// the delivery, and the error (drops counted, a failed resource).
  private static func trafficLines(
    of peer: PeerSnapshot, traffic: [TrafficEntry], now: Int64, into lines: inout [ContentLine]
  ) {
    var entries: [TrafficEntry] = []
    let folder = Array(peer.folder.utf8)
    if !folder.isEmpty {
      for entry in traffic.reversed() where entries.count < trafficLimit {
        if entry.directory.withBytes({ $0.elementsEqual(folder) }) { entries.append(entry) }
      }
    }
    let count = entries.count < trafficLimit ? "\(entries.count)" : "newest \(trafficLimit)"
    lines.append(ContentLine([.init("traffic (\(count))", "contents.key")]))
    if entries.isEmpty { lines.append(ContentLine(indent: 2, [.init("none", "list.dim")])) }
    for entry in entries {
      let failed = entry.error != nil || entry.delivery == .failed
      var pieces: [ContentLine.Piece] = [
        .init(TrafficPaneView.timeText(of: entry, now: now) + " ", "list.dim"),
        .init(
          Formatting.padded(DisplayText.field(TrafficPaneView.kindName(entry.kind)), 14),
          failed ? "traffic.failed" : TrafficPaneView.role(of: entry)),
      ]
      pieces.append(.init(entry.identifier.displayField, "contents"))
      pieces.append(.init("  " + Formatting.size(entry.size), "contents"))
      if let other = entry.peer { pieces.append(.init("  → " + DisplayText.field(other), "contents")) }
      if let delivery = entry.delivery { pieces.append(.init("  " + delivery.rawValue, "list.dim")) }
      lines.append(ContentLine(indent: 2, pieces))
      if let error = entry.error {
        lines.append(ContentLine(indent: 6, [.init(DisplayText.escaped(error), "list.error")]))
      }
    }
  }
}
