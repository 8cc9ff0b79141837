import ArchivedValues

/// Data an operator sends from a running peer (``DashboardEffect/peerSend(_:)``): sent to the
/// sending peer's control socket as `send TO[,TO...] reliable|unreliable DATA`, as `peer send` does.
public struct PeerDataSend: Sendable, Hashable {
  /// The sending peer's control socket.
  public var controlSocketPath: String
  /// The sending peer, `NAME#xxxx` (for messages).
  public var peer: String
  /// The connected peers it goes to, as typed (`NAME` or `NAME#xxxx`, `,`-separated).
  public var targets: String
  /// `reliable` or `unreliable`.
  public var mode: String
  /// The data's bytes (the text typed, in UTF-8).
  public var data: [UInt8]

  /// `send of 5 bytes reliable from alice#a11c to bob`, escaped.
  public var operation: String {
    "send of \(data.count) bytes \(mode) from \(DisplayText.field(peer)) to \(DisplayText.field(targets))"
  }
}
