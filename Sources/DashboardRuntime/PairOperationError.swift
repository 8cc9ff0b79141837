import DeviceSession

/// Why an operation on a pair's devices failed.
public enum PairOperationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The session refused or failed it, as WatchConnectivity's would: not reachable (7007), reply
  /// timed out (7012), not activated (7004), a transfer not outstanding or already sent.
  case session(SessionError)
  /// Anything else (no such pair, a device that does not answer, the file system), said in
  /// words that are safe to show.
  case failed(String)

  /// WatchConnectivity's error code, when the session gave one.
  public var code: Int? {
    if case .session(let error) = self { return error.code }
    return nil
  }

  public var description: String {
    switch self {
    case .session(let error): return error.description
    case .failed(let reason): return reason
    }
  }
}
