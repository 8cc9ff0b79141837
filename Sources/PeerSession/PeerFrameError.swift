import DeviceSession

/// Why bytes from a link are not a peer frame: a ``FrameError`` of the peers' format, whose
/// message says `peer frame`. A link drops a connection that sends one.
public struct PeerFrameError: FrameCodingError, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong, as the frame checks say it.
  public var error: FrameError

  /// The peer frame error for `error` (a shared frame check's).
  public init(_ error: FrameError) { self.error = error }

  /// The frame announces more bytes than the link accepts.
  public static func oversized(bytes: Int, limit: Int) -> Self {
    Self(.oversized(bytes: bytes, limit: limit))
  }
  /// The bytes end before the frame (or a list inside it) does.
  public static func truncated(needed: Int, available: Int) -> Self {
    Self(.truncated(needed: needed, available: available))
  }
  /// The bytes are not a peer frame of this version (bad magic, kind, name, or lengths that
  /// disagree).
  public static func malformed(_ reason: String) -> Self { Self(.malformed(reason)) }

  public var description: String { error.description(calling: "peer frame", format: "peer frame") }
}
