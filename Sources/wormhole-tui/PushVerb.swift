import DevicePairing
import DeviceRouting
import MQTTClient

/// `push --device PAIR:ROLE PAYLOAD`: a push notification to a running device, which routes it.
enum PushVerb {
  static let verb = Verb(
    name: "push",
    synopsis: "--device PAIR:ROLE PAYLOAD [--json] [--broker URL]",
    summary: "Send a push notification to a running device and print the route it took.",
    details: """
      PAYLOAD is a JSON file, or - for standard input, in APNs' form: an object with an "aps"
      dictionary, at most 4096 bytes ("Simulator Target Bundle" is accepted, as xcrun simctl push
      accepts it). The device (device run, with --routes FILE) routes it by the string under
      aps.notification_id (device run --push-key KEY names another key) and prints nothing here:
      this verb prints the route taken, 'catcher N "PATTERN" (FILE:LINE)', 'delegate' or
      'unhandled', or with --json the route as one JSON object. Exit 2 for a payload that is
      refused (with the reason) or a bad --device, 3 when the device is not running or the
      route's pass failed. A peer (peer:NAME) is not available yet. --broker mqtt://HOST:PORT
      reaches a device run with --broker on any machine, through its push topic; one that does
      not answer within 30 s is taken as not running.
      """,
    options: [
      RouteArguments.deviceOption, RouteArguments.jsonOption, PairArguments.homeOption,
      OptionSpec(.broker, help: "reach the device through this MQTT broker (mqtt://HOST:PORT)"),
    ],
    usesLocation: false,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    guard arguments.positional.count == 1 else {
      throw .usage("push takes one payload: a JSON file, or - for standard input (see --help)")
    }
    let address = try RouteArguments.address(arguments, verb: "push")
    let bytes = try RouteArguments.read(arguments.positional[0], what: "payload")
    let notification: PushNotification
    do { notification = try PushNotification(json: bytes) } catch { throw .usage(error.description) }
    if let broker = try DeviceVerb.brokerAddress(arguments) {
      return try RouteArguments.deliver(arguments, address: address) { _ throws(PairedDeviceError) in
        try BrokerRouting.push(notification, to: address, through: broker)
      }
    }
    return try RouteArguments.deliver(arguments, address: address) { client throws(PairedDeviceError) in
      try client.push(notification)
    }
  }
}
