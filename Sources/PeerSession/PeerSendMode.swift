/// How data is sent (`MCSessionSendDataMode`).
public enum PeerSendMode: String, Sendable, Hashable, CaseIterable {
  /// In order, none lost, while the peer stays connected.
  case reliable
  /// No retransmission and no ordering promise: a receiver that falls behind drops messages
  /// (counted, and reported as ``PeerEvent/unreliableDropped(from:count:)``).
  case unreliable
}
