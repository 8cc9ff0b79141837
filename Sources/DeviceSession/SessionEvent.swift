/// Something a session did that a journal should record: every send, its outcome, and what
/// arrived. ``SessionEngine/setObserver(_:)`` hands these over, in the order they happened, from
/// every path into the engine (the verbs, a control channel, the library), so that an observer
/// sees all of them without a call site knowing.
///
/// Sends are named by what the receiver also sees: a message by its ``time`` and sequence, a
/// context by its version, a transfer by its id (each increasing on the sending device).
public enum SessionEvent: Sendable, Equatable {
  /// A message went to the reachable counterpart.
  case messageSent(identifier: String, sequence: UInt64, time: Int64, bytes: Int, replyRequested: Bool)
  /// A message could not be sent: not activated (7004), not reachable (7007), too large (7010),
  /// a bad identifier. `sequence` and `time` are those of the frame when one was made.
  case messageFailed(identifier: String, sequence: UInt64?, time: Int64, bytes: Int, error: SessionError)
  /// The reply to a message arrived (`bytes` is the reply's size).
  case replyReceived(identifier: String, sequence: UInt64, time: Int64, bytes: Int)
  /// No reply came: timed out (7012), or the counterpart left first (7007).
  case replyFailed(identifier: String, sequence: UInt64, time: Int64, error: SessionError)
  /// An application context update was stored, to be delivered (now or when next reachable).
  case contextQueued(identifier: String, version: UInt64, bytes: Int)
  /// These identifiers were removed from the application context (a context update, version
  /// `version`), to be delivered now or when next reachable.
  case contextRemoved(identifiers: [String], version: UInt64)
  /// The counterpart stored this version of the application context.
  case contextDelivered(version: UInt64, bytes: Int)
  /// A context update could not be made (not activated, too large, a bad identifier).
  case contextFailed(identifier: String, bytes: Int, error: SessionError)
  /// A transfer was written to the outbound queue.
  case transferQueued(FileTransferSummary)
  /// The counterpart stored these transfers (acknowledged).
  case transfersDelivered([UInt64])
  /// A queued transfer was cancelled: it is never delivered.
  case transferCancelled(FileTransferSummary)
  /// A transfer could not be queued (not activated, too large, a bad identifier).
  case transferFailed(identifier: String, bytes: Int, error: SessionError)
  /// A message from the counterpart arrived (the receiver's side of ``messageSent``).
  case messageReceived(identifier: String, sequence: UInt64, time: Int64, bytes: Int)
  /// A new context from the counterpart was stored (`identifiers` are those that changed;
  /// `removed`, those of them it no longer has).
  case contextReceived(version: UInt64, identifiers: [String], bytes: Int, removed: [String] = [])
}

/// A transfer as an observer needs it: without its payload.
public struct FileTransferSummary: Sendable, Equatable {
  public var id: UInt64
  public var identifier: String
  public var bytes: Int

  /// The summary of `transfer`.
  public init(_ transfer: FileTransfer) {
    id = transfer.id
    identifier = transfer.identifier
    bytes = transfer.payload.count
  }
}
