import Glibc

// A file-size limit (ulimit -f) or quota makes writes fail with an error we report, instead of a
// signal that kills the process without a word.
signal(SIGXFSZ, SIG_IGN)

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first else {
  emitRaw(Verbs.overview)
  exit(ExitCode.success.rawValue)
}
if name == "--help" || name == "-h" || name == "help" {
  if arguments.count > 1, let verb = Verbs.all.first(where: { $0.name == arguments[1] }) {
    emitRaw(verb.help)
  } else {
    emitRaw(Verbs.overview)
  }
  exit(ExitCode.success.rawValue)
}
if name == "--version" || name == "version" {
  print("wormhole-tui \(version)")
  exit(ExitCode.success.rawValue)
}
guard let verb = Verbs.all.first(where: { $0.name == name }) else {
  diagnose("unknown verb \(name); verbs: \(Verbs.all.map(\.name).joined(separator: ", ")) (see --help)")
  exit(ExitCode.usage.rawValue)
}
do {
  let parsed = try ParsedArguments(Array(arguments.dropFirst()), options: verb.allOptions)
  if parsed.flag("help") {
    emitRaw(verb.help)
    exit(ExitCode.success.rawValue)
  }
  exit(try verb.run(parsed).rawValue)
} catch {
  diagnose(error.message)
  exit(error.code.rawValue)
}
