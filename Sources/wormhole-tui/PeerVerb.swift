import DevicePairing
import DeviceSession
import Dispatch
import Glibc
import KeyedArchive
import MQTTClient
import PeerSession

/// `peer run|invite|answer|send|send-resource|disconnect|cancel|list`: Multipeer-style peers under the home.
enum PeerVerb {
  static let verb = Verb(
    name: "peer",
    synopsis: "run|invite|answer|send|send-resource|disconnect|cancel|list [ARGUMENTS] [OPTIONS]",
    summary: "Run Multipeer-style peers; invite, answer, send data and resources between them.",
    details: """
      peer run --service TYPE --name NAME [--advertise] [--browse] [--info KEY=VALUE ...]
               [--accept always|never|ask] [--routes FILE [--push-key KEY]] [--broker URL] [--json]
        runs a peer (a new identity each run, shown NAME#xxxx) until interrupted, printing one
        line per event (found, lost, invitation, state, data, dropped, resource, refused), or
        one JSON object a line with --json. --accept answers invitations (default ask: answer
        them with 'peer answer'). Its files are under <home>/peers/TYPE/. --routes FILE routes
        the pushes and deep links sent to it (push, open-url --device peer:NAME) as device run
        does; its pass routes write to mailboxes of its folder <home>/peers/TYPE/ID/ (file or
        coordinated-file: a pass with a session type is refused, 2). --push-key as device run.
        --broker URL: through an MQTT broker, so it finds and is found by the peers of TYPE on
        every machine that reaches it (the other verbs still drive it from this machine).
      peer invite --from NAME --to NAME [--context JSON] [--timeout S]
        has the running peer --from invite the peer --to it found (the context archived);
        ends when --to is connected (0) or is not, with the reason (declined, timed out: 3).
      peer answer --from NAME --to NAME accept|decline
        has --from answer the invitation waiting from --to.
      peer send --from NAME --to NAME[,NAME...] --mode reliable|unreliable DATA|--string TEXT
        sends DATA (JSON, sent as its text, or @FILE for a file's bytes), or with --string
        TEXT as it is, to connected peers; a peer that is not connected fails (3) naming it.
      peer send-resource --from NAME --to NAME FILE [--name N]
        sends a file as a resource and ends when it is finished, cancelled or failed.
      peer disconnect --name NAME [--service TYPE]
        has the running peer NAME leave its session; the others see it notConnected (left).
      peer cancel --name NAME RESOURCE
        has NAME cancel its resource in flight RESOURCE (SENDERHEX/NUMBER, as its run output
        and the dashboard name it); the other side sees it cancelled.
      peer list [--json]
        the running peers: service, NAME#xxxx, pid, advertising, connected peers.
      NAME is a peer name, or NAME#xxxx (the id's last four hex digits) to pick one of several
      peers that share it: a name several running peers share is refused (2) with their ids.
      Service types and names that break a rule are refused (2) with the rule.
      Data and resources are recorded in each peer's traffic journal, <home>/peers/TYPE/ID/.
      """,
    options: [
      OptionSpec(.service, help: "the service type (1-15 of a-z, 0-9, -; run; else narrows --from)"),
      OptionSpec(
        .name, help: "run: the peer's name; disconnect, cancel: the peer that acts; send-resource: its name"),
      OptionSpec(.advertise, help: "run: advertise the peer to browsers of its service"),
      OptionSpec(.browse, help: "run: browse for advertisers of its service"),
      OptionSpec(.info, help: "run: a discovery info entry (repeatable)"),
      OptionSpec(.accept, help: "run: how invitations are answered (default ask)"),
      OptionSpec(.json, help: "run, list: one JSON object a line"),
      OptionSpec(.from, help: "the running peer that acts"),
      OptionSpec(.to, help: "the peer (or peers, comma-separated, for send) it acts on"),
      OptionSpec(.context, help: "invite: the invitation's context, JSON"),
      OptionSpec(.timeout, help: "invite: seconds to wait for the answer (default 30)"),
      OptionSpec(.mode, help: "send: reliable or unreliable"),
      OptionSpec(.string, help: "send: send TEXT as it is (its UTF-8 bytes) instead of DATA"),
      OptionSpec(.routes, help: "run: route pushes and deep links by this routes file"),
      OptionSpec(.pushKey, help: "run: the aps key pushes are matched on (default notification_id)"),
      OptionSpec(.broker, help: "run: meet the peers through this MQTT broker: " + Option.brokerAddressHelp),
      PairArguments.homeOption,
    ],
    usesLocation: false,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    guard let action = arguments.positional.first else {
      throw .usage(
        "peer takes an action: run, invite, answer, send, send-resource, disconnect, cancel or list (see --help)"
      )
    }
    let rest = Array(arguments.positional.dropFirst())
    switch action {
    case "run": return try runPeer(arguments, rest)
    case "invite": return try PeerRequests.invite(arguments, rest)
    case "answer": return try PeerRequests.answer(arguments, rest)
    case "send": return try PeerRequests.send(arguments, rest)
    case "send-resource": return try PeerRequests.sendResource(arguments, rest)
    case "disconnect": return try PeerRequests.disconnect(arguments, rest)
    case "cancel": return try PeerRequests.cancel(arguments, rest)
    case "list": return try PeerRequests.list(arguments, rest)
    default:
      throw .usage(
        "unknown peer action \(DisplayText.field(action)): "
          + "run, invite, answer, send, send-resource, disconnect, cancel or list")
    }
  }

  private static func runPeer(_ arguments: ParsedArguments, _ rest: [String]) throws(CommandError) -> ExitCode
  {
    guard rest.isEmpty else { throw .usage("peer run takes no arguments, only options (see --help)") }
    guard let serviceText = arguments.value(.service) else { throw .usage("peer run needs --service TYPE") }
    guard let nameText = arguments.value(.name) else { throw .usage("peer run needs --name NAME") }
    let service = try PeerArguments.service(serviceText)
    let name = try PeerArguments.name(nameText)
    var entries: [String: String] = [:]
    for entry in arguments.values(.info) {
      guard let equals = entry.firstIndex(of: "=") else {
        throw .usage("--info takes KEY=VALUE, not \(DisplayText.field(entry))")
      }
      entries[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
    }
    let info: DiscoveryInfo
    do throws(DiscoveryInfoError) { info = try DiscoveryInfo(entries) } catch {
      throw .usage(error.description)
    }
    let policyText = arguments.value(.accept) ?? "ask"
    guard let policy = InvitationPolicy(rawValue: policyText) else {
      throw .usage("--accept takes always, never or ask, not \(DisplayText.field(policyText))")
    }
    let json = arguments.flag(.json)
    let routes = try RouteArguments.routesFile(arguments, peer: true)
    let broker = try DeviceVerb.brokerAddress(arguments)
    if broker != nil {
      // A setting that cannot be used is a usage error (exit 2), as a bad keep-alive is, before
      // anything starts.
      do throws(LinkError) { _ = try MQTTPeerLink.defaultOutageLimit() } catch {
        throw .usage(error.reason)
      }
    }
    let peer: LocalPeer
    do throws(PeerError) {
      let home = PeerArguments.home(arguments)
      if let broker {
        peer = try LocalPeer(name: name, service: service, home: home, broker: broker)
      } else {
        peer = try LocalPeer(name: name, service: service, home: home)
      }
    } catch { throw .failure(error.description) }
    try RouteArguments.install(routes, in: peer, arguments)
    peer.setEventHandler { event in emit(PeerLines.line(event, json: json)) }
    let sources = Termination.handle()
    Termination.onExit { peer.stop() }
    do throws(PeerError) {
      try peer.start(
        advertising: arguments.flag(.advertise) ? info : nil, policy: policy,
        browsing: arguments.flag(.browse))
    } catch {
      peer.stop()
      throw .failure(error.description)
    }
    diagnose(
      "peer \(peer.identity) of service \(service.text) is running (pid \(getpid()))"
        + (arguments.flag(.advertise) ? ", advertising" : "") + (arguments.flag(.browse) ? ", browsing" : "")
        + ", invitations: \(policy.rawValue)"
        + (broker.map { ", through the broker \(DisplayText.escaped($0.description))" } ?? ""))
    withExtendedLifetime(sources) { dispatchMain() }
  }
}
