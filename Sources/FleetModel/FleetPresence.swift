/// Whether a machine's bridge is connected to the broker, as its retained presence says.
public enum FleetPresence: String, Sendable, Hashable {
  /// The bridge published `online` and is connected.
  case online
  /// The bridge stopped (`offline`) or died (its Last Will): what it published stays, marked so.
  case offline
  /// No presence was seen yet (only mailboxes or traffic of the machine arrived).
  case unknown
}
