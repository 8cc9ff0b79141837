import DeviceSession

/// What an operation of ``PairedDeviceClient`` can fail with. Identifiers, names and paths in a
/// message are escaped, so it can be shown on a terminal as it is.
public enum PairedDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The session refused or failed the operation, as WatchConnectivity's would: not activated
  /// (7004), not reachable (7007), reply timed out (7012), a transfer not outstanding or already
  /// sent, an identifier no mailbox can have, a payload too large (7010), storage.
  case session(SessionError)
  /// The pair or the device's files: no such pair, a damaged pair, a file system failure.
  case store(PairStoreError)
  /// Another process holds the device's run lock (its pid, when it wrote one) but serves no
  /// control socket: it is starting, or it is not a `device run`. Try again, or stop it.
  case notAnswering(DeviceAddress, pid: Int32?)
  /// The running device's control socket failed during the request (or could not be served).
  case controlChannel(DeviceAddress, reason: String)
  /// The running device refused a push or a deep link: it runs without routes, or the request
  /// is not one (the reason says which).
  case routeRefused(DeviceAddress, reason: String)

  /// The store's error, with a session's error inside it brought out as ``session(_:)``.
  init(_ error: PairStoreError) {
    if case .session(let session) = error {
      self = .session(session)
    } else {
      self = .store(error)
    }
  }

  /// The session's error, when the session refused the operation.
  public var sessionError: SessionError? {
    if case .session(let error) = self { return error }
    return nil
  }

  /// WatchConnectivity's error code (7004, 7007, 7010, 7012), when there is one.
  public var code: Int? { sessionError?.code }

  public var description: String {
    switch self {
    case .session(let error): return PairDisplay.escaped(error.description)
    case .store(let error): return error.description
    case .notAnswering(let address, let pid):
      return "the \(address.role) of \(PairDisplay.name(address.pair)) is running "
        + "(\(pid.map { "pid \($0)" } ?? "starting")) and does not answer on its control socket: "
        + "it is starting or is not a device run; try again, or stop it"
    case .controlChannel(_, let reason): return PairDisplay.escaped(reason)
    case .routeRefused(let address, let reason):
      return
        "the \(address.role) of \(PairDisplay.name(address.pair)) refused it: \(PairDisplay.escaped(reason))"
    }
  }
}
