import DeviceSession

/// Why bytes from a link are not a peer frame. A link drops a connection that sends one.
public enum PeerFrameError: FrameCodingError, Sendable, Equatable, CustomStringConvertible {
  /// The frame announces more bytes than the link accepts.
  case oversized(bytes: Int, limit: Int)
  /// The bytes end before the frame (or a list inside it) does.
  case truncated(needed: Int, available: Int)
  /// The bytes are not a peer frame of this version (bad magic, kind, name, or lengths that disagree).
  case malformed(String)

  /// The peer frame error for `error` (a shared frame check's), case for case.
  public init(_ error: FrameError) {
    switch error {
    case .oversized(let bytes, let limit): self = .oversized(bytes: bytes, limit: limit)
    case .truncated(let needed, let available): self = .truncated(needed: needed, available: available)
    case .malformed(let reason): self = .malformed(reason)
    }
  }

  public var description: String {
    switch self {
    case .oversized(let bytes, let limit):
      return "a peer frame of \(bytes) bytes was refused: at most \(limit) are accepted"
    case .truncated(let needed, let available):
      return "a peer frame was cut short: \(needed) more bytes were needed, \(available) came"
    case .malformed(let reason): return "not a peer frame: \(reason)"
    }
  }
}
