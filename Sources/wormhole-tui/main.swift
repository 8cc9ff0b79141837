import Glibc

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

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first else {
  emitRaw(Verbs.overview)
  Termination.exit(.success)
}
if name == "--help" || name == "-h" || name == "help" {
  if arguments.count > 1, let verb = Verbs.all.first(where: { $0.name == arguments[1] }) {
    emitRaw(verb.help)
  } else {
    emitRaw(Verbs.overview)
  }
  Termination.exit(.success)
}
if name == "--version" || name == "version" {
  emit("wormhole-tui \(version)")
  Termination.exit(.success)
}
guard let verb = Verbs.all.first(where: { $0.name == name }) else {
  diagnose("unknown verb \(name); verbs: \(Verbs.all.map(\.name).joined(separator: ", ")) (see --help)")
  Termination.exit(.usage)
}
do {
  let parsed = try ParsedArguments(Array(arguments.dropFirst()), options: verb.allOptions)
  if parsed.flag("help") {
    emitRaw(verb.help)
    Termination.exit(.success)
  }
  Termination.exit(try verb.run(parsed))
} catch {
  diagnose(error.message)
  Termination.exit(error.code)
}
