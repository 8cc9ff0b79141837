/// A remote peer's state in the local session (`MCSessionState`).
public enum PeerConnectionState: String, Sendable, Hashable, CaseIterable {
  case notConnected
  case connecting
  case connected
}
