/// How a message travels between the processes of a wormhole.
public enum TransitingType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// A mailbox file replaced atomically; the notification rings after the rename.
  case file = "file"
  /// As ``file``, with per-identifier file locks held while writing and reading, so that
  /// concurrent writers serialize and a reader never sees a message being replaced.
  case coordinatedFile = "coordinated-file"
  /// WatchConnectivity's application context between paired devices: latest value wins, persisted.
  case sessionContext = "session-context"
  /// WatchConnectivity's live messages: delivered only while the counterpart is reachable.
  case sessionMessage = "session-message"
  /// WatchConnectivity's file transfers: queued and delivered in order.
  case sessionFile = "session-file"

  /// Whether this build can pass messages with this type.
  public var isAvailable: Bool { self == .file || self == .coordinatedFile }

  public var description: String { rawValue }
}
