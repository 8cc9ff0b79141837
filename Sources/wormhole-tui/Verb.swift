/// A command-line verb: its name, usage, options and body. The table in `Verbs.all` drives both
/// dispatch and help, so they cannot disagree.
struct Verb: Sendable {
  var name: String
  var synopsis: String
  var summary: String
  var details: String = ""
  var options: [OptionSpec]
  var usesLocation = true
  /// Internal verbs (the demo's simulated processes) are left out of the overview.
  var isHidden = false
  var run: @Sendable (ParsedArguments) throws(CommandError) -> ExitCode

  var allOptions: [OptionSpec] {
    options + (usesLocation ? Location.options : []) + [
      OptionSpec(.help, help: "show this help")
    ]
  }

  var help: String {
    var text = "usage: wormhole-tui \(name) \(synopsis)\n\n\(summary)\n"
    if !details.isEmpty { text += "\n\(details)\n" }
    text += "\noptions:\n"
    for option in allOptions {
      let left = "  --\(option.name)" + (option.value.map { " \($0)" } ?? "")
      text +=
        left.padding(toLength: max(left.count + 2, 26), withPad: " ", startingAt: 0) + option.help + "\n"
    }
    return text
  }
}

enum Verbs {
  static let all: [Verb] = [
    DashboardVerb.verb, PassVerb.verb, ReadVerb.verb, ClearVerb.verb, ListenVerb.verb, TailVerb.verb,
    DumpVerb.verb, SnapshotVerb.verb, InspectVerb.verb, DemoVerb.verb, DemoPlayerVerb.verb,
    PairVerb.verb, DeviceVerb.verb, TransfersVerb.verb,
    PushVerb.verb, OpenURLVerb.verb,
    PeerVerb.verb,
    BridgeVerb.verb,
  ]

  /// The verbs offered to a user (help, a mistyped verb's message): all but the hidden ones.
  static var listed: [Verb] { all.filter { !$0.isHidden } }

  /// The verb called `name`, matched by its exact bytes.
  static func named(_ name: String) -> Verb? { all.first { matches(name, $0.name) } }

  /// Whether an argument is exactly `word`, byte for byte (`String`'s `==` is canonical
  /// equivalence, under which a KELVIN SIGN equals a `K`).
  static func matches(_ argument: String, _ word: String) -> Bool { argument.utf8.elementsEqual(word.utf8) }

  static var overview: String {
    var text = """
      usage: wormhole-tui [ROOT...] [OPTIONS]        the live dashboard
             wormhole-tui VERB [ARGUMENTS] [OPTIONS]

      Pass, read, clear and follow MMWormhole-style messages between processes on Linux.
      Standard output carries data; diagnostics go to standard error.

      verbs:

      """
    for verb in listed {
      text += "  " + verb.name.padding(toLength: 10, withPad: " ", startingAt: 0) + verb.summary + "\n"
    }
    text += """

      The message verbs take --home DIR, --group G, --directory D or --container DIR to choose
      the wormhole directory, and --pair NAME --role phone|watch for a simulated device's
      containers and the session types; pair, device and transfers take --home. All take --help.
      Exit codes: 0 success, 1 nothing there (empty mailbox, timeout), 2 usage error, 3 operation
      failed (including output that cannot be written, a refused device, 7007 and 7012).
      '--' ends options: 'clear -- --all' clears the mailbox named --all.
      Run 'wormhole-tui VERB --help' for a verb's options.

      """
    return text
  }
}
