import ArchivedValues
import DevicePairing
import DeviceRouting
import MQTTClient

/// `open-url --device PAIR:ROLE URL`: a deep link opened on a running device, which routes it.
enum OpenURLVerb {
  static let verb = Verb(
    name: "open-url",
    synopsis: "--device PAIR:ROLE URL [--json] [--broker URL]",
    summary: "Open a URL (a deep link) on a running device and print the route it took.",
    details: """
      The URL must have a scheme (myapp://…) and no spaces or control characters (write them
      percent-encoded), at most 65536 bytes. The device (device run, with --routes FILE) matches
      it, whole and case-insensitively, against its deep-link routes in order; this verb prints
      the route taken, 'catcher N "PATTERN" (FILE:LINE)', 'delegate' (perhaps 'declined by …')
      or 'unhandled', or with --json the route as one JSON object. Exit 2 for a bad URL or
      --device, 3 when the device is not running or the route's pass failed. --broker
      mqtt://HOST:PORT reaches a device run with --broker on any machine, through its push
      topic; one that does not answer within 30 s is taken as not running.
      """,
    options: [
      RouteArguments.deviceOption, RouteArguments.jsonOption, PairArguments.homeOption,
      OptionSpec(.broker, help: "reach the device through this MQTT broker (mqtt://HOST:PORT)"),
    ],
    usesLocation: false,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    guard arguments.positional.count == 1 else { throw .usage("open-url takes one URL (see --help)") }
    let address = try RouteArguments.address(arguments, verb: "open-url")
    let text = arguments.positional[0]
    let link: DeepLink
    do { link = try DeepLink(text) } catch {
      throw .usage("\(DisplayText.field(text)) is \(error.description)")
    }
    guard text.utf8.count <= DeepLink.maximumWireBytes else {
      throw .usage("the URL is \(text.utf8.count) bytes; at most \(DeepLink.maximumWireBytes) are sent")
    }
    if let broker = try DeviceVerb.brokerAddress(arguments) {
      return try RouteArguments.deliver(arguments, address: address) { _ throws(PairedDeviceError) in
        try BrokerRouting.open(link, on: address, through: broker)
      }
    }
    return try RouteArguments.deliver(arguments, address: address) { client throws(PairedDeviceError) in
      try client.open(link)
    }
  }
}
