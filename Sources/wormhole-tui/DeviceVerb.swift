import DevicePairing
import DeviceRouting
import DeviceSession
import Dispatch
import Glibc
import KeyedArchive
import MQTTClient

/// `device run --pair NAME --role phone|watch`: one simulated device, running until interrupted.
enum DeviceVerb {
  static let verb = Verb(
    name: "device",
    synopsis:
      "run --pair NAME --role phone|watch [--group G] [--json] [--reply JSON | --echo] [--routes FILE] [--push-key KEY] [--broker URL]",
    summary: "Run a pair's simulated phone or watch, printing what it receives.",
    details: """
      The device takes its role's run lock (a second run of the role is refused with the running
      one's pid, exit 3), activates its session and is reachable to its counterpart until it
      stops. It is handed what waits for it: the newest application context and the queued
      transfers, which it stores in its group's mailboxes (<home>/pairs/NAME/ROLE/AppGroup/G).
      Each message, context identifier and transfer is one line on standard output:
      'TYPE #SEQUENCE IDENTIFIER: SUMMARY' (SEQUENCE: the message's number, the context's version
      or the transfer's id), or with --json {"identifier", "transiting", "message", "sequence",
      "time"}. Activation, reachability and finished transfers go to standard error.
      --reply answers each session message that waits for a reply with JSON, --echo with the
      message itself. SIGINT and SIGTERM stop the device cleanly (exit 0).
      --routes FILE routes the pushes and deep links sent to the device (push, open-url): one
      route a line, 'KIND PATTERN ACTION' (KIND deep-link or push) or 'delegate ACTION', ACTION
      'pass ID [TRANSITING]', 'print' or 'decline'; a bad file is refused before the device
      starts, every bad line reported as FILE:LINE:COLUMN (exit 2). A print route writes
      'KIND ROUTE: SUBJECT' (with --json {"kind", "subject", "route", "payload"}). Without
      --routes every delivery is unhandled. --push-key KEY matches pushes on aps.KEY instead of
      aps.notification_id. Every delivery is recorded in the group's traffic journal.
      --broker mqtt://HOST:PORT reaches the counterpart through an MQTT broker instead of the
      local socket, so the two devices may run on different machines (needs libmosquitto1).
      """,
    options: [
      PairArguments.pairOption, PairArguments.roleOption,
      OptionSpec(.group, help: "the device's application group (default $WORMHOLE_GROUP, else \"default\")"),
      OptionSpec(.json, help: "print one JSON object per message"),
      OptionSpec(.reply, help: "answer each session message with this JSON value"),
      OptionSpec(.echo, help: "answer each session message with the message itself"),
      OptionSpec(.routes, help: "route pushes and deep links by this routes file"),
      OptionSpec(.pushKey, help: "the aps key pushes are matched on (default notification_id)"),
      OptionSpec(
        .broker, help: "reach the counterpart through this MQTT broker (\(Option.brokerAddressHelp))"),
      PairArguments.homeOption,
    ],
    usesLocation: false,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    guard arguments.positional.count == 1, Verbs.matches(arguments.positional[0], "run") else {
      throw .usage("device takes one action: run (see --help)")
    }
    let address = try PairArguments.address(arguments, verb: "device run")
    guard !(arguments.value(.reply) != nil && arguments.flag(.echo)) else {
      throw .usage("give --reply or --echo, not both")
    }
    let reply = try arguments.value(.reply).map { text throws(CommandError) in
      try SessionLines.archive(try PassVerb.parseJSON(text, what: "--reply"))
    }
    let echo = arguments.flag(.echo)
    let json = arguments.flag(.json)
    // Read before the run lock is taken: a bad routes file starts no device.
    let routesFile = try RouteArguments.routesFile(arguments, peer: false)
    let pushKey = try RouteArguments.pushKey(arguments)
    let store = PairArguments.store(arguments)
    let group = PairArguments.group(arguments)
    let link = try brokerLink(arguments, address: address)
    let device = try PairArguments.attempt { () throws(PairStoreError) in
      try SimulatedDevice(store: store, address: address, applicationGroup: group, link: link)
    }
    let counterpart = address.role.counterpart
    device.session.setDeliveryHandler { delivery in
      switch delivery {
      case .activated:
        diagnose(
          "the \(address.role) of \(PairDisplay.name(address.pair)) is running (pid \(getpid())), activated; "
            + "group \(PairDisplay.field(group))")
      case .reachabilityChanged(let reachable):
        diagnose("the \(counterpart) is \(reachable ? "reachable" : "not reachable")")
      case .transferFinished(let id):
        diagnose("transfer \(id) was stored by the \(counterpart)")
      case .failure(let error):
        diagnose(error.description)
      case .message(let message):
        for entry in SessionLines.entries(delivery) { emit(SessionLines.line(entry, json: json)) }
        guard message.replyRequested, let answer = echo ? message.payload : reply else { return }
        do throws(SessionError) {
          try device.session.reply(to: message, with: answer)
        } catch {
          diagnose("cannot reply to \(DisplayText.field(message.identifier)) #\(message.sequence): \(error)")
        }
      case .context, .transfer:
        for entry in SessionLines.entries(delivery) { emit(SessionLines.line(entry, json: json)) }
      }
    }
    // Stop on SIGINT and SIGTERM: the link closes, so the counterpart hears it at once.
    let sources = Termination.handle()
    // Served before activation, so that a verb that saw "activated" finds it; stopped before
    // the run lock is released, so that its socket file is never another run's.
    try serveAndActivate(device) { () throws(PairedDeviceError) in
      let routes = DeviceRoutes(routes: routesFile, notificationKey: pushKey, device: device) { printed in
        emit(RouteArguments.printedLine(printed, json: json))
      }
      // Over a broker, pushes and deep links also come from its push topic (push/open-url --broker).
      link?.route(with: routes)
      return try DeviceControlServer(session: device.session, directory: device.directory, routes: routes)
    }
    let removal = watchForRemoval(device)
    withExtendedLifetime((sources, removal)) { dispatchMain() }
  }

  /// How often a running device looks whether its files are still there.
  static let removalCheckInterval = DispatchTimeInterval.milliseconds(500)

  /// A timer that stops the process (exit 3, saying why) once `device`'s files were removed or
  /// replaced under it (`rm -rf` of its pair): its run lock no longer guards the role, so a pair
  /// made again under that name could run a second device of it. It ends without the clean-ups,
  /// which remove the device's sockets and reports by their paths: those may already be a newer
  /// run's, of the pair made again.
  static func watchForRemoval(_ device: SimulatedDevice) -> any DispatchSourceTimer {
    let timer = DispatchSource.makeTimerSource(queue: .global())
    timer.schedule(deadline: .now() + removalCheckInterval, repeating: removalCheckInterval)
    timer.setEventHandler {
      guard !device.holdsItsRole else { return }
      Termination.abandonFiles(
        saying:
          "the \(device.address.role) of \(PairDisplay.name(device.address.pair))'s files were removed or "
          + "replaced (\(DisplayText.field(device.directory.runLockPath)) is not the run lock it holds): this run "
          + "stops, leaving the files at those paths alone; start the device again (once the pair exists again: "
          + "pair create)", .failure)
    }
    timer.resume()
    return timer
  }

  /// Serves `device`'s control socket (the server `control` makes), then activates its session;
  /// the server and the device stop when the process ends. A server that cannot start stops the
  /// device and ends the command.
  static func serveAndActivate(
    _ device: SimulatedDevice, control: () throws(PairedDeviceError) -> DeviceControlServer
  ) throws(CommandError) {
    let server: DeviceControlServer
    do throws(PairedDeviceError) { server = try control() } catch {
      device.stop()
      throw .failure(error.description)
    }
    Termination.onExit {
      server.stop()
      device.stop()
    }
    do throws(SessionError) { try device.session.activate() } catch { throw CommandError(error) }
  }

  /// The broker `--broker` names (a usage error, exit 2, for a bad address, no libmosquitto, or a
  /// `WORMHOLE_MQTT_KEEPALIVE` that cannot be used), or `nil` when it is not given.
  static func brokerAddress(_ arguments: ParsedArguments) throws(CommandError) -> BrokerAddress? {
    guard let text = arguments.value(.broker) else { return nil }
    if let problem = MQTTDeviceLink.keepAliveProblem { throw .usage(problem) }
    return try BrokerAddress(argument: text)
  }

  /// The MQTT link `--broker` asks for (a usage error, exit 2, for a bad address, a pair name
  /// a topic cannot hold, or no libmosquitto), or `nil` for the local one.
  static func brokerLink(_ arguments: ParsedArguments, address: DeviceAddress) throws(CommandError)
    -> MQTTDeviceLink?
  {
    guard let broker = try brokerAddress(arguments) else { return nil }
    do throws(LinkError) { return try MQTTDeviceLink(address: address, broker: broker) } catch {
      throw .usage(error.description)
    }
  }
}
