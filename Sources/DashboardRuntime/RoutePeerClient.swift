import ArchivedValues
import Dashboard
import DevicePairing
import PeerSession

extension PeerRouteClient {
  /// The client for a peer the route form offered: its folder of peers is the one its control
  /// socket is in (`<home>/peers/<service>/<ID>.control.sock`), so its run lock is found
  /// there. `nil` when the socket is not where a peer of that service and id keeps it.
  init?(_ peer: RouteTarget.Peer) {
    guard let service = try? ServiceType(peer.service) else { return nil }
    var parts = peer.controlSocketPath.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count > 3 else { return nil }
    parts.removeLast(3)
    let directory = PeerDirectory(home: parts.joined(separator: "/"), service: service)
    guard directory.controlSocketPath(peer.id) == peer.controlSocketPath else { return nil }
    self.init(directory: directory, id: peer.id, label: "peer:" + peer.label)
  }
}
