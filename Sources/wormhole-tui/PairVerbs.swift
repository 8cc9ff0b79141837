import DevicePairing
import DeviceSession
import KeyedArchive

/// `pair create NAME`, `pair list [--json]`, `pair delete NAME [--force]`, `pair wait NAME
/// --role ROLE | --reachable [--timeout S]`: the pairs of simulated devices under the home.
enum PairVerb {
  static let verb = Verb(
    name: "pair",
    synopsis:
      "create NAME | list [--json] | delete NAME [--force] | wait NAME --role ROLE|--reachable [--timeout S] "
      + "[--home DIR]",
    summary: "Create, list, delete and wait for pairs of simulated devices (a phone and a watch).",
    details: """
      A pair is a simulated iPhone and Apple Watch under <home>/pairs/NAME, each with its own
      containers. A name follows the identifier rules, tighter: not empty, '.' or '..', no '/',
      NUL or control characters, at most 64 bytes. list prints one line per pair: each device,
      running (with its pid) or not, activated or not while it runs (its session's link listens),
      its queued transfers, and whether the two reach each other as the device running here
      knows it (its link's reachability of its counterpart, which may run on another machine
      through a broker: "reachable" or "not reachable"), or "reachability unknown" with the
      reason when no device of the pair runs here or the one that does is stopped (SIGSTOP);
      --json prints one JSON object per pair (reachable true, false or null when unknown, with
      the reason in reachabilityUnknown; each device's activationState: activated or
      notActivated, stopped, and denied). A running device whose link was denied says so:
      "taken over: REASON" (another run of its role took its place on the broker; it no longer
      connects) or "refused: REASON" (the broker refused a publication of it, its ACL), in JSON
      denied {"kind": "takenOver" or "refused", "reason"}, else null.
      delete refuses while a device of the pair runs (exit 3, with its pid), unless --force:
      then the running devices are stopped first (SIGTERM, SIGKILL after 5 s; each said on
      standard error), so none goes on running on the deleted files.
      wait returns (exit 0) once the device of --role runs, is not stopped and its session
      activated (what list calls activated), at once when it is: a session message can then
      be passed to it (a device of this machine: for one on another machine, through a broker,
      use --reachable). With --reachable it waits for the pair to be reachable as list says it
      (both devices up here, or one up here reaching the other through a broker). It is woken by the device's files (inotify on its directory: the run lock's
      pid, the link's socket, the reachability report) and reads the state again every 1 s
      regardless (every 0.25 s while a device is stopped, as SIGCONT changes no file). Exit 1
      when --timeout (default 30 s) passes first, saying the device's state: not running,
      running but not activated, or stopped (SIGSTOP) with its pid; 3 for no such pair (or
      one deleted meanwhile).
      """,
    options: [
      OptionSpec(.json, help: "list: one JSON object per pair"),
      OptionSpec(.force, help: "delete: stop the pair's running devices first"),
      OptionSpec(.role, help: "wait: the device to wait for, phone or watch"),
      OptionSpec(.reachable, help: "wait: for the pair reachable (both devices up)"),
      OptionSpec(.timeout, help: "wait: exit 1 after this many seconds (default 30)"),
      PairArguments.homeOption,
    ],
    usesLocation: false,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    guard let action = arguments.positional.first else {
      throw .usage("pair needs create NAME, list, delete NAME or wait NAME (see --help)")
    }
    let store = PairArguments.store(arguments)
    let rest = Array(arguments.positional.dropFirst())
    if Verbs.matches(action, "wait") { return try PairWait.run(arguments, store: store, rest: rest) }
    if arguments.value(.role) != nil || arguments.flag(.reachable) || arguments.value(.timeout) != nil {
      throw .usage("--role, --reachable and --timeout are for pair wait")
    }
    func onlyName() throws(CommandError) -> PairName {
      guard rest.count == 1 else { throw .usage("pair \(action) takes one NAME") }
      return try PairArguments.name(rest[0])
    }
    if Verbs.matches(action, "create") {
      let name = try onlyName()
      _ = try PairArguments.attempt { () throws(PairStoreError) in try store.create(name) }
      diagnose("created the pair \(PairDisplay.name(name))")
    } else if Verbs.matches(action, "delete") {
      let name = try onlyName()
      let stopped = try PairArguments.attempt { () throws(PairStoreError) in
        try store.delete(name, force: arguments.flag(.force))
      }
      for device in stopped {
        diagnose(
          "stopped the \(device.address.role) of \(PairDisplay.name(name)) (pid \(device.pid)"
            + (device.wasKilled
              ? ", killed: it did not end within \(Int(PairStore.stopBound)) s of SIGTERM)" : ")"))
      }
    } else if Verbs.matches(action, "list") {
      guard rest.isEmpty else { throw .usage("pair list takes no NAME") }
      for status in try PairArguments.attempt({ () throws(PairStoreError) in try store.list() }) {
        emit(arguments.flag(.json) ? jsonLine(status) : textLine(status))
      }
    } else {
      throw .usage("unknown pair action \(DisplayText.field(action)); one of create, list, delete, wait")
    }
    return .success
  }

  static func textLine(_ status: PairStatus) -> String {
    func device(_ device: DeviceStatus) -> String {
      let state =
        switch device.runningPID {
        case nil: "not running"
        case 0: "starting"
        case let pid?: "running (pid \(pid))"
        }
      let activation = device.isRunning ? (device.isActivated ? ", activated" : ", not activated") : ""
      let stopped = device.isStopped ? ", stopped" : ""
      let denied = device.report?.denial.map { ", \($0.kindText): \(DisplayText.escaped($0.reason))" } ?? ""
      return
        "\(device.address.role) \(state)\(activation)\(stopped)\(denied), \(device.queuedTransfers) queued"
    }
    let reachability =
      switch status.reachability {
      case .reachable: "reachable"
      case .unreachable: "not reachable"
      case .unknown(let reason): "reachability unknown (\(reason))"
      }
    return "\(PairDisplay.name(status.pair.name)): \(device(status.phone)); \(device(status.watch)); "
      + reachability
  }

  /// `{"kind": "takenOver"|"refused", "reason"}`: what carries a device's link denied it.
  static func deniedJSON(_ denial: LinkDenial) -> String {
    "{\"kind\":\"\(denial.kind.rawValue)\",\"reason\":\(DisplayText.jsonString(denial.reason))}"
  }

  static func jsonLine(_ status: PairStatus) -> String {
    func device(_ device: DeviceStatus) -> String {
      "{\"running\":\(device.isRunning),\"pid\":\(device.runningPID.map(String.init) ?? "null")"
        + ",\"queuedTransfers\":\(device.queuedTransfers)"
        + ",\"activationState\":\"\(device.activationState.rawValue)\",\"stopped\":\(device.isStopped)"
        + ",\"denied\":\(device.report?.denial.map(deniedJSON) ?? "null")}"
    }
    let reachability =
      switch status.reachability {
      case .reachable: "true"
      case .unreachable: "false"
      case .unknown(let reason): "null,\"reachabilityUnknown\":\(DisplayText.jsonString(reason))"
      }
    return "{\"name\":\(DisplayText.jsonString(status.pair.name.text)),\"reachable\":\(reachability)"
      + ",\"phone\":\(device(status.phone)),\"watch\":\(device(status.watch))}"
  }
}
