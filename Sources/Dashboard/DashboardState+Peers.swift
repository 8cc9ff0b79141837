/// The running simulated peers inside the dashboard: their branch of the tree, and the
/// answers to their pending invitations.
extension DashboardState {
  /// Takes the peers as they are now: the tree's branch follows, the selection stays on its node
  /// (or the row that held it when the peer is gone).
  mutating func applyPeers(_ peers: [PeerSnapshot]) {
    let sorted = peers.sorted { ($0.service, $0.name, $0.id) < ($1.service, $1.name, $1.id) }
    let changed = sorted != self.peers
    self.peers = sorted
    var nodes: [TreeNodeID] = []
    for peer in sorted {
      if nodes.last.map({ Self.service(of: $0) != peer.service }) ?? true {
        nodes.append(.peerService(peer.service))
      }
      nodes.append(.peer(service: peer.service, id: peer.id))
    }
    updateTree(.peers(nodes))
    if changed, selection?.isPeerNode == true { clampContents() }
  }

  private static func service(of node: TreeNodeID) -> String? {
    switch node {
    case .peerService(let service), .peer(let service, _): return service
    default: return nil
    }
  }

  /// The selected peer, when a peer row is selected.
  public var selectedPeer: PeerSnapshot? {
    guard case .peer(let service, let id)? = selection else { return nil }
    return peers.first { $0.service == service && $0.id == id }
  }

  /// Sends `data` from the selected peer to `targets` (connected peers) in `mode`; `@FILE`
  /// sends that file's bytes (read by the runtime, at most ``PeerDataSend/maximumFileBytes``).
  mutating func peerSend(to targets: String, mode: String, data: String) -> [DashboardEffect] {
    guard let peer = selectedPeer else {
      report("peer-send: select the peer to send from (the peers' branch)", isError: true)
      return []
    }
    return [
      .peerSend(
        PeerDataSend(
          controlSocketPath: peer.controlSocketPath, peer: peer.label, targets: targets, mode: mode,
          typed: data))
    ]
  }

  /// Has the selected peer leave its session through its control socket.
  mutating func disconnectPeer() -> [DashboardEffect] {
    guard let peer = selectedPeer else {
      report("disconnect: select the peer to disconnect (the peers' branch)", isError: true)
      return []
    }
    return [
      .peerCommand(
        PeerCommand(controlSocketPath: peer.controlSocketPath, peer: peer.label, request: .disconnect))
    ]
  }

  /// Cancels the selected peer's resource in flight (the one under the contents cursor, or its
  /// only one) through its control socket.
  mutating func cancelPeerResource() -> [DashboardEffect] {
    guard let selection, let selectedPeer else {
      report("cancel: select the peer whose resource it is (the peers' branch)", isError: true)
      return []
    }
    guard !selectedPeer.resources.isEmpty else {
      report("cancel: no resource of this peer is in flight", isError: true)
      return []
    }
    guard
      let (peer, resource) = PeerContentsLines.resource(onLine: contentsCursor, of: selection, peers: peers)
    else {
      report("cancel: put the contents cursor on the resource to cancel", isError: true)
      return []
    }
    return [
      .peerCommand(
        PeerCommand(
          controlSocketPath: peer.controlSocketPath, peer: peer.label,
          request: .cancel(id: resource.id, name: resource.name)))
    ]
  }

  /// Answers the pending invitation of the selected peer (the one under the contents cursor,
  /// or its only one) through its control socket.
  mutating func answerInvitation(accepts: Bool) -> [DashboardEffect] {
    let word = accepts ? "accept" : "decline"
    guard let selection, selection.isPeerNode, case .peer = selection else {
      report("\(word): select a peer whose invitation waits (the peers' branch)", isError: true)
      return []
    }
    guard let selectedPeer, !selectedPeer.invitations.isEmpty else {
      report("\(word): no invitation waits for this peer", isError: true)
      return []
    }
    guard
      let (peer, invitation) = PeerContentsLines.invitation(
        onLine: contentsCursor, of: selection, peers: peers)
    else {
      report("\(word): put the contents cursor on the invitation to answer", isError: true)
      return []
    }
    return [
      .answerInvitation(
        PeerAnswer(
          controlSocketPath: peer.controlSocketPath, peer: peer.label, from: invitation.peer, accepts: accepts
        ))
    ]
  }
}
