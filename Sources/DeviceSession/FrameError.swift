/// Why bytes from a link are not a frame. The link drops a connection that sends one.
public enum FrameError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The frame announces more bytes than the link accepts.
  case oversized(bytes: Int, limit: Int)
  /// The bytes end before the frame does.
  case truncated(needed: Int, available: Int)
  /// The bytes are not a frame of this version (bad magic, kind, role, or lengths that disagree).
  case malformed(String)

  public var description: String { description(calling: "frame", format: "device frame") }

  /// The message of a format whose frames are called `frame` (`a peer frame of 9 bytes was
  /// refused`) and whose name is `format` (`not a peer frame: …`).
  package func description(calling frame: String, format: String) -> String {
    switch self {
    case .oversized(let bytes, let limit):
      return "a \(frame) of \(bytes) bytes was refused: at most \(limit) are accepted"
    case .truncated(let needed, let available):
      return "a \(frame) was cut short: \(needed) more bytes were needed, \(available) came"
    case .malformed(let reason): return "not a \(format): \(reason)"
    }
  }
}
