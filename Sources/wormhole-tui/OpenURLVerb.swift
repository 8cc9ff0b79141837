import ArchivedValues
import DevicePairing
import DeviceRouting

/// `open-url --device PAIR:ROLE|peer:NAME URL`: a deep link opened on a running device or peer,
/// which routes it.
enum OpenURLVerb {
  static let verb = Verb(
    name: "open-url",
    synopsis: "--device PAIR:ROLE|peer:NAME URL [--json] [--broker URL]",
    summary: "Open a URL (a deep link) on a running device or peer and print the route it took.",
    details: """
      The URL must have a scheme (myapp://…) and no spaces or control characters (write them
      percent-encoded), at most 65536 bytes. --device is PAIR:ROLE (r1:phone) for a pair's
      device, or peer:NAME (NAME#xxxx to pick one of several peers of that name) for a running
      peer. The device (device run, with --routes FILE) or peer (peer run --routes FILE) matches
      it, whole and case-insensitively, against its deep-link routes in order; this verb prints
      the route taken, 'catcher N "PATTERN" (FILE:LINE)', 'delegate' (perhaps 'declined by …')
      or 'unhandled', or with --json the route as one JSON object. Exit 2 for a bad URL or
      --device, or a peer name several running peers share, 3 when the device or peer is not
      running or the route's pass failed. --broker URL reaches a pair's device run with
      --broker on any machine, through its push topic; one that does not answer within 30 s is
      taken as not running.
      """,
    options: RouteArguments.deliveryOptions,
    usesLocation: false,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    guard arguments.positional.count == 1 else { throw .usage("open-url takes one URL (see --help)") }
    let selector = try RouteArguments.selector(arguments, verb: "open-url")
    let text = arguments.positional[0]
    let link: DeepLink
    do { link = try DeepLink(text) } catch {
      throw .usage("\(DisplayText.field(text)) is \(error.description)")
    }
    guard text.utf8.count <= DeepLink.maximumWireBytes else {
      throw .usage("the URL is \(text.utf8.count) bytes; at most \(DeepLink.maximumWireBytes) are sent")
    }
    return try RouteArguments.deliver(.deepLink(link), arguments, to: selector)
  }
}
