import ArchivedValues
import DeviceRouting

/// The device a push or a deep link goes to (``RouteSend``): one of a pair's devices, or a
/// running peer, as `--device PAIR:ROLE` and `--device peer:NAME` name them.
public enum RouteTarget: Sendable, Hashable {
  /// A device of the pair `pair` of the pair store under `home`.
  case device(home: String, pair: String, role: PairSnapshot.Role)
  /// A running peer, as the peers' branch showed it.
  case peer(Peer)

  /// A running peer a push or a deep link goes to: named exactly (its service and id), so
  /// that it reaches that peer and no other of the same name.
  public struct Peer: Sendable, Hashable {
    /// Its service type.
    public var service: String
    /// Its id.
    public var id: UInt64
    /// `NAME#xxxx`, as its records name it (raw).
    public var label: String
    /// How `--device peer:…` picks it among the running peers (without `peer:`): its name
    /// when no other peer has it and it shows as it is, `NAME#xxxx` when several share it,
    /// `#xxxx` when it has characters a terminal does not show as they are.
    public var selector: String
    /// Its control socket, where the push or deep link is sent.
    public var controlSocketPath: String
  }

  /// The target as `--device` spells it, escaped: `r1:phone`, `peer:lamp`, `peer:desk#1a2b`.
  public var shown: String {
    switch self {
    case .device(_, let pair, let role): return DisplayText.field(pair) + ":" + role.rawValue
    case .peer(let peer): return DeviceSelector.peerPrefix + DisplayText.field(peer.selector)
    }
  }

  /// The running peer, when it is one.
  public var peer: Peer? {
    if case .peer(let peer) = self { return peer }
    return nil
  }
}

// Out of the struct, so that Swift keeps its (internal) memberwise initializer.
extension RouteTarget.Peer {
  /// `peer` as offered among `peers` (the running ones): with the selector the verbs accept.
  public init(_ peer: PeerSnapshot, among peers: [PeerSnapshot]) {
    let digits = String(peer.label.suffix(4))
    let selector: String
    if DisplayText.escaped(peer.name) != peer.name || peer.name.isEmpty {
      selector = "#" + digits
    } else if peers.contains(where: {
      $0.name == peer.name && ($0.id != peer.id || $0.service != peer.service)
    }) {
      selector = peer.label
    } else {
      selector = peer.name
    }
    self.init(
      service: peer.service, id: peer.id, label: peer.label, selector: selector,
      controlSocketPath: peer.controlSocketPath)
  }
}
