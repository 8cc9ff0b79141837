/// `WCSessionActivationState`'s two states that a simulated device goes through.
public enum ActivationState: String, Sendable, Equatable {
  case notActivated
  case activated
}

/// A live message from the counterpart.
public struct ReceivedMessage: Sendable, Equatable {
  public var identifier: String
  public var payload: [UInt8]
  /// The sender's number for it (increasing within the sender's session).
  public var sequence: UInt64
  /// When it was sent, in nanoseconds since 1970 (the sender's clock).
  public var time: Int64
  /// Whether the sender waits for ``SessionEngine/reply(to:with:)``.
  public var replyRequested: Bool
}

/// The counterpart's application context, as it arrived.
public struct ReceivedContext: Sendable, Equatable {
  /// The whole context (MMWormhole's dictionary of identifiers).
  public var context: SessionContext
  /// The identifiers whose archives differ from the context received before (added, changed,
  /// or removed), in byte order; empty for an identical context delivered on request.
  public var changedIdentifiers: [String]
  /// When it was sent, in nanoseconds since 1970 (the sender's clock).
  public var time: Int64
}

/// What a session hands to its handler, in the order it happened.
public enum SessionDelivery: Sendable, Equatable {
  /// The session is activated (`activationDidComplete`).
  case activated
  /// The counterpart became reachable or unreachable (`sessionReachabilityDidChange`).
  case reachabilityChanged(Bool)
  /// A new application context arrived (`didReceiveApplicationContext`).
  case context(ReceivedContext)
  /// A live message arrived (`didReceiveMessage`).
  case message(ReceivedMessage)
  /// A transfer arrived and is stored in its mailbox (`didReceiveFile`).
  case transfer(FileTransfer)
  /// The counterpart stored one of this device's transfers (`didFinishFileTransfer`).
  case transferFinished(UInt64)
  /// Something from the counterpart could not be taken (it is retried where it can be), input
  /// whose sender is unknown was refused (``SessionError/refusedInput(_:)``), or what carries
  /// the link refused this device itself (``SessionError/linkDenied(_:)``).
  case failure(SessionError)
}
