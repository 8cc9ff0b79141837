import Glibc
import KeyedArchive

/// Everything that can go wrong in a wormhole, each with a message that says what to fix.
public enum WormholeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The identifier cannot name a mailbox.
  case invalidIdentifier(String, reason: String)
  /// An application group or optional directory name cannot be used as a path component.
  case invalidName(kind: String, name: String, reason: String)
  /// The wormhole directory is missing, not a directory, or cannot be created.
  case containerUnavailable(path: String, reason: String)
  /// The transiting type cannot be opened this way: a session type needs a pair's device, not
  /// a directory.
  case transitingTypeUnavailable(TransitingType)
  /// A session transiting type's operation failed. `code` is WatchConnectivity's `WCErrorCode`
  /// where it has one (7004 not activated, 7007 not reachable, 7010 payload too large, 7012 reply
  /// timed out); `reason` says what happened and what to do.
  case sessionFailed(TransitingType, code: Int?, reason: String)
  /// The simulated device a session wormhole needs could not be opened or used (no such pair,
  /// the role already runs in another process, its files cannot be used).
  case deviceUnavailable(device: String, reason: String)
  /// A file-system call failed.
  case fileSystem(operation: String, path: String, code: Int32)
  /// A mailbox path holds something other than a regular file.
  case notAMailbox(path: String, reason: String)
  /// A mailbox is larger than the configured limit.
  case messageTooLarge(path: String, bytes: Int, limit: Int)
  /// The message could not be archived.
  case encodingFailed(String)
  /// A mailbox holds bytes that could not be decoded.
  case decodingFailed(path: String, reason: String)
  /// The traffic journal is not a regular file this process can open (a link, FIFO, device,
  /// directory, or a file without permission): nothing was written.
  case journalUnusable(path: String, reason: String)
  /// Another process held the journal's lock for longer than ``Wormhole/Options/journalLockTimeout``.
  case journalLocked(path: String, holder: String, seconds: Double)

  public var description: String {
    switch self {
    case .invalidIdentifier(let identifier, let reason):
      return "invalid identifier \(quoted(identifier)): \(reason)"
    case .invalidName(let kind, let name, let reason):
      return "invalid \(kind) \(quoted(name)): \(reason)"
    case .containerUnavailable(let path, let reason):
      return "wormhole directory \(path) is unavailable: \(reason)"
    case .transitingTypeUnavailable(let type):
      return
        "transiting type \(type.rawValue) is not available on a directory: it travels between a pair's simulated "
        + "devices (open it with Wormhole(pair:role:transitingType:applicationGroup:home:) from DevicePairing, "
        + "or use file or coordinated-file)"
    case .sessionFailed(let type, _, let reason):
      return "\(type.rawValue) failed: \(DisplayText.escaped(reason))"
    case .deviceUnavailable(let device, let reason):
      return "the simulated device \(quoted(device)) cannot be used: \(DisplayText.escaped(reason))"
    case .fileSystem(let operation, let path, let code):
      let hint = code == ENOSPC ? " (the disk is full; the previous message was kept)" : ""
      return "cannot \(operation) \(path): \(String(cString: strerror(code)))\(hint)"
    case .notAMailbox(let path, let reason):
      return "\(path) is not a mailbox: \(reason)"
    case .messageTooLarge(let path, let bytes, let limit):
      return "\(path) holds \(bytes) bytes, more than the \(limit)-byte limit for one message"
    case .encodingFailed(let reason):
      return "cannot archive the message: \(reason)"
    case .decodingFailed(let path, let reason):
      return "cannot decode \(path): \(reason)"
    case .journalUnusable(let path, let reason):
      return "the traffic journal \(quoted(path)) cannot be used: \(reason)"
    case .journalLocked(let path, let holder, let seconds):
      return
        "the traffic journal \(quoted(path)) stayed locked by \(holder) for \(seconds) seconds (a stopped or stuck writer; end it, or raise Options.journalLockTimeout)"
    }
  }
}

/// A name in double quotes with everything a terminal would act on escaped.
func quoted(_ text: String) -> String { DisplayText.quoted(text) }
