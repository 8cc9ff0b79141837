import ArchivedValues
import DevicePairing
import DeviceRouting
import DeviceSession
import Glibc
import MQTTClient
import PeerSession
import Wormhole
import WormholeVocabulary

/// What `push`, `open-url` and `device run --routes` share: reading a routes file or a payload,
/// `--device`, and the lines a route prints.
enum RouteArguments {
  /// The largest routes file or payload file read, so that a refusal states the real size.
  static let maximumInputBytes = 1 << 20

  /// The options of `push` and `open-url`: which device or peer, how to print the route, and
  /// the broker that reaches a pair's device on another machine.
  static let deliveryOptions = [
    OptionSpec(.device, help: "the device: PAIR:ROLE (r1:phone), or peer:NAME for a running peer"),
    OptionSpec(.json, help: "print the route as one JSON object"),
    PairArguments.homeOption,
    OptionSpec(.broker, help: "reach the device through this MQTT broker (\(Option.brokerAddressHelp))"),
  ]

  /// The bytes of `file` (`-` is standard input), at most ``maximumInputBytes``: a usage error
  /// (exit 2) otherwise, as for any input that is wrong.
  static func read(_ file: String, what: String) throws(CommandError) -> [UInt8] {
    let shown = DisplayText.field(file)
    let descriptor: Int32
    if Verbs.matches(file, "-") {
      descriptor = STDIN_FILENO
    } else {
      descriptor = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
      guard descriptor >= 0 else {
        throw .usage("cannot read the \(what) \(shown): \(String(cString: strerror(errno)))")
      }
    }
    defer { if descriptor != STDIN_FILENO { _ = close(descriptor) } }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw .usage("cannot read the \(what) \(shown): \(String(cString: strerror(errno)))")
    }
    let kind = status.st_mode & S_IFMT
    if descriptor != STDIN_FILENO {
      // Only a regular file (a FIFO would block, a device never end), read blocking.
      guard kind == S_IFREG else { throw .usage("the \(what) \(shown) is not a regular file") }
      _ = fcntl(descriptor, F_SETFL, 0)
    }
    let expected = kind == S_IFREG ? Int(status.st_size) : 0
    switch FileSystem.readToEnd(descriptor, expectedSize: expected, limit: maximumInputBytes) {
    case .bytes(let bytes): return bytes
    case .tooLarge(let size):
      throw .usage("the \(what) \(shown) is \(size) bytes or more; at most \(maximumInputBytes) are read")
    case .failed(let code):
      throw .usage("cannot read the \(what) \(shown): \(String(cString: strerror(code)))")
    }
  }

  /// The device `--device` names (required): a pair's device or a running peer.
  static func selector(_ arguments: ParsedArguments, verb: String) throws(CommandError) -> DeviceSelector {
    guard let text = arguments.value(.device) else {
      throw .usage("\(verb) needs --device PAIR:ROLE (as in r1:phone) or peer:NAME")
    }
    do { return try DeviceSelector(text) } catch {
      throw .usage("--device \(DisplayText.field(text)) is \(error.description)")
    }
  }

  /// The broker `--broker` names and the pair's device to reach through it, or `nil` without
  /// `--broker`: a usage error for a peer (peers are reached on their own machine).
  private static func broker(_ arguments: ParsedArguments, for selector: DeviceSelector) throws(CommandError)
    -> (broker: BrokerAddress, address: DeviceAddress)?
  {
    guard let broker = try DeviceVerb.brokerAddress(arguments) else { return nil }
    guard case .device(let address) = selector else {
      throw .usage(
        "--broker reaches a pair's device (PAIR:ROLE); a peer is reached on its own machine, without --broker"
      )
    }
    return (broker, address)
  }

  /// `PAIR:ROLE` as a terminal shows it.
  static func shown(_ address: DeviceAddress) -> String {
    DisplayText.field(DeviceSelector.device(address).description)
  }

  /// Sends `delivery` (a push or a deep link) to the device or peer `selector` names and prints
  /// the route: its description, or with `--json` its JSON object. A device gets it through its
  /// push topic with `--broker`, else on its control socket; a peer on its control socket. Exit
  /// 3 when the device or peer is not running or the route's pass failed; 2 when a peer's name
  /// is ambiguous or `--broker` is given for a peer.
  static func deliver(_ delivery: RouteDelivery, _ arguments: ParsedArguments, to selector: DeviceSelector)
    throws(CommandError) -> ExitCode
  {
    let request =
      switch delivery {
      case .push(let notification): PeerRouteClient.request(notification)
      case .deepLink(let link): PeerRouteClient.request(link)
      }
    if let (broker, address) = try broker(arguments, for: selector) {
      return try deliver(arguments, to: selector, request: request) { _ throws(PairedDeviceError) in
        switch delivery {
        case .push(let notification): try BrokerRouting.push(notification, to: address, through: broker)
        case .deepLink(let link): try BrokerRouting.open(link, on: address, through: broker)
        }
      }
    }
    return try deliver(arguments, to: selector, request: request) { client throws(PairedDeviceError) in
      switch delivery {
      case .push(let notification): try client.push(notification)
      case .deepLink(let link): try client.open(link)
      }
    }
  }

  private static func deliver(
    _ arguments: ParsedArguments, to selector: DeviceSelector, request: PeerControlMessage,
    _ deliver: (PairedDeviceClient) throws(PairedDeviceError) -> RoutedDelivery?
  ) throws(CommandError) -> ExitCode {
    let routed: RoutedDelivery
    switch selector {
    case .device(let address): routed = try self.deliver(arguments, address: address, deliver)
    case .peer(let name): routed = try self.deliver(request, to: try peer(name, arguments))
    }
    emit(arguments.flag(.json) ? routed.json : routed.description)
    if let failure = routed.failure {
      throw .failure("the route was taken, but its action failed: \(DisplayText.escaped(failure))")
    }
    return .success
  }

  private static func deliver(
    _ arguments: ParsedArguments, address: DeviceAddress,
    _ deliver: (PairedDeviceClient) throws(PairedDeviceError) -> RoutedDelivery?
  ) throws(CommandError) -> RoutedDelivery {
    let client = PairedDeviceClient(
      store: PairArguments.store(arguments), address: address, applicationGroup: "default")
    let routed: RoutedDelivery?
    do throws(PairedDeviceError) { routed = try deliver(client) } catch {
      switch error {
      case .store(let store): throw CommandError(store)
      default: throw .failure(error.description)
      }
    }
    guard let routed else {
      throw .failure("\(shown(address)) is not running (start it with device run)")
    }
    return routed
  }

  /// The running peer `name` (`NAME` or `NAME#xxxx`) names, of any service: refused when none
  /// runs (3) or several share the name (2, with their ids).
  private static func peer(_ name: String, _ arguments: ParsedArguments) throws(CommandError) -> RunningPeer {
    let running = RunningPeer.all(home: PeerArguments.home(arguments), service: nil)
    let matches = PeerSelector.matches(name, among: running.map(\.identity))
    let chosen = running.filter { matches.contains($0.identity) }
    if chosen.count == 1 { return chosen[0] }
    if chosen.isEmpty {
      throw .failure("peer:\(DisplayText.field(name)) is not running (start it with peer run)")
    }
    throw .usage(
      "the name \(DisplayText.field(name)) is ambiguous: "
        + chosen.map { "\($0.identity) (\($0.directory.service.text), pid \($0.pid))" }.joined(
          separator: ", ")
        + "; pick one as peer:NAME#xxxx")
  }

  private static func deliver(_ request: PeerControlMessage, to peer: RunningPeer) throws(CommandError)
    -> RoutedDelivery
  {
    do throws(PeerRouteError) {
      return try PeerRouteClient(peer).deliver(request)
    } catch {
      if case .refused(_, let isUsage, let message) = error {
        throw CommandError(message: message, code: isUsage ? .usage : .failure)
      }
      throw .failure(error.description)
    }
  }

  /// `--routes FILE` read and parsed (nil without it), and with `peer` checked for passes with a
  /// session type (a peer has none): a usage error (exit 2) with one line on standard error per
  /// problem, the last as the error.
  static func routesFile(_ arguments: ParsedArguments, peer: Bool) throws(CommandError) -> RoutesFile? {
    guard let file = arguments.value(.routes) else { return nil }
    let bytes = try read(file, what: "routes file")
    var problems: [RoutesFileError]
    let routes: RoutesFile?
    do throws(RoutesFileErrors) {
      let parsed = try RoutesFile.parse(bytes, file: file)
      routes = parsed
      problems = peer ? DeviceRoutes.sessionPasses(in: parsed, file: file) : []
    } catch {
      routes = nil
      problems = error.errors
    }
    guard let last = problems.popLast() else { return routes }
    for problem in problems { diagnose(problem.description) }
    throw .usage(last.description)
  }

  /// `--push-key KEY`, or the default key.
  static func pushKey(_ arguments: ParsedArguments) throws(CommandError) -> String {
    let key = arguments.value(.pushKey) ?? Router.defaultNotificationKey
    guard !key.isEmpty else { throw .usage("--push-key needs a key of the aps dictionary") }
    return key
  }

  /// Installs `routes` (checked by ``routesFile(_:peer:)``) in `peer`, with `--push-key`; its
  /// `print` routes print on standard output. Without either option the peer keeps its empty
  /// routes.
  static func install(_ routes: RoutesFile?, in peer: LocalPeer, _ arguments: ParsedArguments)
    throws(CommandError)
  {
    let key = try pushKey(arguments)
    guard routes != nil || arguments.value(.pushKey) != nil else { return }
    let json = arguments.flag(.json)
    let file = arguments.value(.routes) ?? ""
    do throws(RoutesFileErrors) {
      try peer.setRoutes(routes ?? RoutesFile(), named: file, notificationKey: key) { printed in
        emit(printedLine(printed, json: json))
      }
    } catch {
      throw .usage(error.description)
    }
  }

  /// The line a `print` route writes on the device's standard output: `deep-link ROUTE: URL` or
  /// `push ROUTE: NOTIFICATION-ID`, or with `--json` `{"kind","subject","route","payload"}`.
  static func printedLine(_ printed: DeviceRoutes.Printed, json: Bool) -> String {
    let kind = printed.delivery.kind.rawValue
    let payload = String(decoding: printed.delivery.bytes, as: UTF8.self)
    if json {
      return
        "{\"kind\":\(JSONText.string(kind)),\"subject\":\(JSONText.string(orNull: printed.outcome.subject)),"
        + "\"route\":\(printed.outcome.json),\"payload\":\(JSONText.string(payload))}"
    }
    let subject = printed.outcome.subject.map(DisplayText.escaped) ?? "(no notification identifier)"
    return "\(kind) \(printed.outcome.description): \(subject)"
  }
}
