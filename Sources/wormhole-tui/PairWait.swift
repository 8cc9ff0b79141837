import DevicePairing
import DeviceSession

/// `pair wait NAME --role phone|watch | --reachable [--timeout S]`: waits until a device of the
/// pair is up (running, not stopped, its session activated), or until the pair is reachable, so
/// that a script can start `device run … &` and then pass a session message without a race.
enum PairWait {
  /// How long `pair wait` waits without `--timeout`.
  static let defaultTimeout: Double = 30

  static func run(_ arguments: ParsedArguments, store: PairStore, rest: [String]) throws(CommandError)
    -> ExitCode
  {
    guard rest.count == 1 else {
      throw .usage("pair wait takes one NAME (and --role phone|watch or --reachable)")
    }
    let name = try PairArguments.name(rest[0])
    let goal: PairWaiter.Goal
    switch (arguments.value(.role) != nil, arguments.flag(.reachable)) {
    case (true, true): throw .usage("pair wait takes --role ROLE or --reachable, not both")
    case (false, false): throw .usage("pair wait needs --role phone|watch, or --reachable for both devices")
    case (true, false): goal = .activated(try PairArguments.role(arguments, verb: "pair wait"))
    case (false, true): goal = .reachable
    }
    let timeout = try arguments.seconds(.timeout) ?? defaultTimeout
    let waiter = PairWaiter(store: store, pair: name, goal: goal)
    let pair = PairDisplay.name(name)
    let outcome = try PairArguments.attempt { () throws(PairStoreError) in
      try waiter.wait(seconds: timeout) { status in
        // One line, so that a reader (or a test) knows the wait began and on what.
        switch goal {
        case .activated(let role):
          let device = status.device(role)
          diagnose(
            "waiting up to \(timeout.shownAsSeconds) s for the \(role) of \(pair): it \(state(of: device))")
        case .reachable:
          diagnose("waiting up to \(timeout.shownAsSeconds) s for \(pair) to be reachable")
        }
      }
    }
    switch goal {
    case .activated(let role):
      let device = outcome.status.device(role)
      guard outcome.isMet else {
        throw CommandError(
          message: "timed out after \(timeout.shownAsSeconds) s: the \(role) of \(pair) \(state(of: device))",
          code: .nothing)
      }
      diagnose("the \(role) of \(pair) is activated (pid \(device.runningPID ?? 0))")
    case .reachable:
      guard outcome.isMet else {
        let status = outcome.status
        throw CommandError(
          message: "timed out after \(timeout.shownAsSeconds) s: \(pair) is not reachable: the phone "
            + "\(state(of: status.phone)), the watch \(state(of: status.watch))",
          code: .nothing)
      }
      diagnose("\(pair) is reachable")
    }
    return .success
  }

  /// What a device is short of being up: `is not running`, `is running (pid N), not activated`,
  /// `is stopped (pid N, SIGSTOP): kill -CONT N`, or `is activated` (for `--reachable`, where
  /// the other one or the link is what is missing).
  static func state(of device: DeviceStatus) -> String {
    guard let pid = device.runningPID else { return "is not running" }
    if device.isStopped { return "is stopped (pid \(pid), SIGSTOP): kill -CONT \(pid)" }
    if pid == 0 { return "is starting" }
    return device.isActivated ? "is activated (pid \(pid))" : "is running (pid \(pid)), not activated"
  }
}
