/// What a session operation can fail with. Codes follow WatchConnectivity's `WCErrorCode`
/// where one exists, so messages and the traffic can say "7007" as Xcode would.
public enum SessionError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The session is not activated yet (`WCErrorCodeSessionNotActivated`, 7004).
  case notActivated
  /// The counterpart device is not reachable (`WCErrorCodeNotReachable`, 7007).
  case notReachable
  /// The payload is larger than a frame carries (`WCErrorCodePayloadTooLarge`, 7010).
  case payloadTooLarge(bytes: Int, limit: Int)
  /// No reply came within the timeout (`WCErrorCodeMessageReplyTimedOut`, 7012).
  case replyTimedOut(seconds: Double)
  /// The transfer is not outstanding (delivered, cancelled, or never queued).
  case transferNotFound(UInt64)
  /// The transfer was already sent to the counterpart, which may have stored it: too late to cancel.
  case transferAlreadySent(UInt64)
  /// The identifier cannot name a mailbox.
  case invalidIdentifier(String, reason: String)
  /// The device's storage failed (a file could not be written or read).
  case storage(String)
  /// The link to the counterpart could not start.
  case linkUnavailable(String)
  /// The counterpart sent something that is not a frame, or a frame out of place.
  case refusedFrame(String)
  /// Something whose sender is unknown was refused (``RefusedInput``): anyone who can publish
  /// on the pair's topics, or reach the device's socket, may have sent it.
  case refusedInput(RefusedInput)
  /// What carries the link refused this device itself: a broker's ACL, or another run of this
  /// device's role that took its place (``LinkDenial``).
  case linkDenied(LinkDenial)

  /// WatchConnectivity's error code, or `nil` for errors it does not have.
  public var code: Int? {
    switch self {
    case .notActivated: return 7004
    case .notReachable: return 7007
    case .payloadTooLarge: return 7010
    case .replyTimedOut: return 7012
    case .transferNotFound, .transferAlreadySent, .invalidIdentifier, .storage, .linkUnavailable,
      .refusedFrame, .refusedInput, .linkDenied:
      return nil
    }
  }

  /// The message; identifiers and paths inside are raw text: escape it to show it on a terminal.
  public var description: String {
    switch self {
    case .notActivated: return "the session is not activated (WCErrorCodeSessionNotActivated 7004)"
    case .notReachable:
      return
        "the counterpart device is not reachable: start it with device run (WCErrorCodeNotReachable 7007)"
    case .payloadTooLarge(let bytes, let limit):
      return "the payload is \(bytes) bytes; at most \(limit) fit a frame (WCErrorCodePayloadTooLarge 7010)"
    case .replyTimedOut(let seconds):
      return "no reply came within \(seconds) s (WCErrorCodeMessageReplyTimedOut 7012)"
    case .transferNotFound(let id):
      return "no outstanding transfer \(id): it was delivered, cancelled or never queued"
    case .transferAlreadySent(let id):
      return "transfer \(id) was already sent to the counterpart and cannot be recalled"
    case .invalidIdentifier(let identifier, let reason):
      return "the identifier \(identifier) cannot be used: \(reason)"
    case .storage(let reason): return "the device's storage failed: \(reason)"
    case .linkUnavailable(let reason): return "the link to the counterpart could not start: \(reason)"
    case .refusedFrame(let reason): return "a frame from the counterpart was refused: \(reason)"
    case .refusedInput(let input): return input.description
    case .linkDenied(let denial): return denial.description
    }
  }
}
