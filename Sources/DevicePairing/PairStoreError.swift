import DeviceSession

/// What the pair store can fail with; every name and path in a message is escaped.
public enum PairStoreError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The name breaks a rule of ``PairName``.
  case invalidName(PairNameError)
  /// `pair create` for a name that exists.
  case pairExists(PairName)
  /// No pair of that name under the home.
  case noSuchPair(PairName)
  /// The pair's directory is there but its `pair.json` is missing or damaged.
  case damagedPair(PairName, reason: String)
  /// `pair delete` while a device of the pair runs (without force).
  case deviceRunning(DeviceAddress, pid: Int32)
  /// `device run` for a role that already runs.
  case alreadyRunning(DeviceAddress, pid: Int32?)
  /// A file or directory of the store could not be used.
  case fileSystem(String)
  /// The device's session could not be set up.
  case session(SessionError)

  public var description: String {
    switch self {
    case .invalidName(let error):
      return "\(PairDisplay.field(error.name)) cannot name a pair: \(error.reason)"
    case .pairExists(let name): return "a pair named \(PairDisplay.name(name)) exists already"
    case .noSuchPair(let name):
      return "there is no pair named \(PairDisplay.name(name)) (create it with pair create)"
    case .damagedPair(let name, let reason):
      return "the pair \(PairDisplay.name(name)) is damaged: \(reason) (delete it with pair delete --force)"
    case .deviceRunning(let address, let pid):
      return
        "the \(address.role) of \(PairDisplay.name(address.pair)) is running (pid \(pid)): stop it first, or delete with --force"
    case .alreadyRunning(let address, let pid):
      let holder = pid.map { "pid \($0)" } ?? "a process that has not written its pid yet"
      return "the \(address.role) of \(PairDisplay.name(address.pair)) is already running (\(holder))"
    case .fileSystem(let message): return message
    case .session(let error): return PairDisplay.escaped(error.description)
    }
  }
}
