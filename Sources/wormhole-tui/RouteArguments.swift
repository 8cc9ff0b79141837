import ArchivedValues
import DevicePairing
import DeviceRouting
import DeviceSession
import Glibc
import Wormhole
import WormholeVocabulary

/// What `push`, `open-url` and `device run --routes` share: reading a routes file or a payload,
/// `--device`, and the lines a route prints.
enum RouteArguments {
  /// The largest routes file or payload file read, so that a refusal states the real size.
  static let maximumInputBytes = 1 << 20

  static let deviceOption = OptionSpec(
    .device, help: "the device: PAIR:ROLE (r1:phone); peer:NAME once peers exist")
  static let jsonOption = OptionSpec(.json, help: "print the route as one JSON object")

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

  /// The device `--device` names (required): a pair's device; a peer is refused until peers exist.
  static func address(_ arguments: ParsedArguments, verb: String) throws(CommandError) -> DeviceAddress {
    guard let text = arguments.value(.device) else {
      throw .usage("\(verb) needs --device PAIR:ROLE (as in r1:phone)")
    }
    let selector: DeviceSelector
    do { selector = try DeviceSelector(text) } catch {
      throw .usage("--device \(DisplayText.field(text)) is \(error.description)")
    }
    switch selector {
    case .device(let address): return address
    case .peer:
      throw .usage("\(DisplayText.field(text)) names a peer: peers are not available yet")
    }
  }

  /// `PAIR:ROLE` as a terminal shows it.
  static func shown(_ address: DeviceAddress) -> String {
    DisplayText.field(DeviceSelector.device(address).description)
  }

  /// Sends through `deliver` and prints the route: its description, or with `--json` its JSON
  /// object. Exit 3 when the device is not running or the route's pass failed.
  static func deliver(
    _ arguments: ParsedArguments, address: DeviceAddress,
    _ deliver: (PairedDeviceClient) throws(PairedDeviceError) -> RoutedDelivery?
  ) throws(CommandError) -> ExitCode {
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
    emit(arguments.flag(.json) ? routed.json : routed.description)
    if let failure = routed.failure {
      throw .failure("the route was taken, but its action failed: \(DisplayText.escaped(failure))")
    }
    return .success
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
