import DeviceSession

/// How a send with a session type went, when it did not fail.
public enum PairSendOutcome: Sendable, Equatable {
  /// session-message: delivered; the reply's archive when one was waited for.
  case message(reply: [UInt8]?)
  /// session-context: sent, queued or unchanged, and whether the counterpart stored it before
  /// the operation returned.
  case context(SessionEngine.ContextUpdate, isStored: Bool)
  /// session-file: the transfer's id, whether the counterpart was reachable (so it was sent)
  /// and whether it stored it before the operation returned.
  case transfer(id: UInt64, wasReachable: Bool, isStored: Bool)
}
