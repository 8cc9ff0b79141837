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

  /// Whether a wormhole of this type can be opened on a directory alone: `true` for ``file`` and
  /// ``coordinatedFile``. All five types are available to the library; the session types need a
  /// pair instead (see ``needsPair``), so for them this is `false`, and a wormhole on a
  /// directory, a form or a verb without a pair cannot use them.
  public var isAvailable: Bool { !needsPair }

  /// Whether this type travels between a pair's two simulated devices (the three session types),
  /// so that a wormhole of it is opened on a pair and role rather than on a directory.
  public var needsPair: Bool { self == .sessionContext || self == .sessionMessage || self == .sessionFile }

  public var description: String { rawValue }
}
