import DevicePairing
import DeviceRouting

/// `push --device PAIR:ROLE|peer:NAME PAYLOAD`: a push notification to a running device or peer,
/// which routes it.
enum PushVerb {
  static let verb = Verb(
    name: "push",
    synopsis: "--device PAIR:ROLE|peer:NAME PAYLOAD [--json] [--broker URL]",
    summary: "Send a push notification to a running device or peer and print the route it took.",
    details: """
      PAYLOAD is a JSON file, or - for standard input, in APNs' form: an object with an "aps"
      dictionary, at most 4096 bytes ("Simulator Target Bundle" is accepted, as xcrun simctl push
      accepts it). --device is PAIR:ROLE (r1:phone) for a pair's device, or peer:NAME (NAME#xxxx
      to pick one of several peers of that name) for a running peer. The device (device run,
      with --routes FILE) or peer (peer run --routes FILE) routes it by the string under
      aps.notification_id (--push-key KEY there names another key); this verb prints the route
      taken, 'catcher N "PATTERN" (FILE:LINE)', 'delegate' or 'unhandled', or with --json the
      route as one JSON object. Exit 2 for a payload that is refused (with the reason), a bad
      --device or a peer name several running peers share, 3 when the device or peer is not
      running or the route's pass failed. --broker URL reaches a pair's device run with --broker
      on any machine, through its push topic; one that does not answer within 30 s is taken as
      not running.
      """,
    options: RouteArguments.deliveryOptions,
    usesLocation: false,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    guard arguments.positional.count == 1 else {
      throw .usage("push takes one payload: a JSON file, or - for standard input (see --help)")
    }
    let selector = try RouteArguments.selector(arguments, verb: "push")
    let bytes = try RouteArguments.read(arguments.positional[0], what: "payload")
    let notification: PushNotification
    do { notification = try PushNotification(json: bytes) } catch { throw .usage(error.description) }
    return try RouteArguments.deliver(.push(notification), arguments, to: selector)
  }
}
