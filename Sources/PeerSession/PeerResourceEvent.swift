/// What happened to a resource transfer, on one side.
public enum PeerResourceEvent: Sendable, Hashable {
  /// It began (`didStartReceivingResourceWithName`, or the sender's progress at 0).
  case started(PeerResourceProgress)
  /// More bytes arrived (receiving) or were acknowledged (sending).
  case progressed(PeerResourceProgress)
  /// The receiver stored it all; `location` is where (receiving side; `nil` when sending).
  case finished(PeerResourceProgress, location: String?)
  /// One side cancelled it; `byPeer`: the other side did.
  case cancelled(PeerResourceProgress, byPeer: Bool)
  /// It cannot finish: the other side went away, or storage failed.
  case failed(PeerResourceProgress, reason: String)
}
