import Glibc
import KeyedArchive

// A file-size limit (ulimit -f) or quota makes writes fail with an error we report, instead of a
// signal that kills the process without a word. SIGPIPE likewise: a write to a closed pipe then
// fails with EPIPE, which ends the process quietly but deliberately (see StandardStreams).
signal(SIGXFSZ, SIG_IGN)
signal(SIGPIPE, SIG_IGN)
// A parent that starts us from a thread with signals blocked (a Dispatch worker's, inherited
// through posix_spawn) would make Ctrl-C and kill ineffective on a follower.
var terminationSignals = sigset_t()
sigemptyset(&terminationSignals)
for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&terminationSignals, number) }
pthread_sigmask(SIG_UNBLOCK, &terminationSignals, nil)
StandardStreams.secure()

var arguments: [String]
do {
  arguments = try RawArguments.decoded()
} catch {
  diagnose(error.message)
  Termination.exit(error.code)
}
// No verb: the dashboard, on the home or the roots given (existing paths), with any options.
if let first = arguments.first,
  !first.hasPrefix("-") || Verbs.matches(first, "--help")
    || Verbs.matches(first, "-h") || Verbs.matches(first, "--version")
{
  var status = stat()
  if Verbs.named(first) == nil && !Verbs.matches(first, "help") && !Verbs.matches(first, "version")
    && stat(first, &status) == 0
  {
    arguments.insert(DashboardVerb.verb.name, at: 0)
  }
} else {
  arguments.insert(DashboardVerb.verb.name, at: 0)
}
let name = arguments[0]
if Verbs.matches(name, "--help") || Verbs.matches(name, "-h") || Verbs.matches(name, "help") {
  if arguments.count > 1, let verb = Verbs.named(arguments[1]) {
    emitRaw(verb.help)
  } else {
    emitRaw(Verbs.overview)
  }
  Termination.exit(.success)
}
if Verbs.matches(name, "--version") || Verbs.matches(name, "version") {
  emit("wormhole-tui \(version)")
  Termination.exit(.success)
}
guard let verb = Verbs.named(name) else {
  diagnose(
    "unknown verb \(DisplayText.field(name)); verbs: \(Verbs.listed.map(\.name).joined(separator: ", ")) (see --help)"
  )
  Termination.exit(.usage)
}
do {
  let parsed = try ParsedArguments(Array(arguments.dropFirst()), options: verb.allOptions)
  if parsed.flag(.help) {
    emitRaw(verb.help)
    Termination.exit(.success)
  }
  Termination.exit(try verb.run(parsed))
} catch {
  diagnose(error.message)
  Termination.exit(error.code)
}
