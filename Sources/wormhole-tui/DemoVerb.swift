import Dashboard
import Dispatch
import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import MailboxWatcher
import Synchronization
import Wormhole

/// `wormhole-tui demo`: the dashboard over live simulated traffic in a temporary home, removed
/// on exit. Two child processes play an app and its extension.
enum DemoVerb {
  static let group = "group.com.example.demo"

  static let verb = Verb(
    name: "demo", synopsis: "[--no-ui] [--seconds N] [--keep] [--theme NAME|PATH]",
    summary: "Open the dashboard over live simulated app and extension traffic (a temporary home).",
    details: """
      Two processes, an app and its extension, pass realistic messages in application group
      \(group): both file transiting types, notifications without a message, clears, a
      write that bypasses the journal, and a pass that fails. The home is removed on exit, with
      the processes, unless --keep is given. --no-ui prints each traffic entry as it happens,
      one line each, for --seconds N (default: until interrupted).
      """,
    options: [
      OptionSpec(.noUI, help: "print the traffic instead of opening the dashboard"),
      OptionSpec(.seconds, help: "stop after N seconds"),
      OptionSpec(.keep, help: "keep the temporary home and print its path"),
      OptionSpec(.theme, help: "colour theme for the dashboard"),
    ],
    usesLocation: false,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    let seconds = try arguments.seconds(.seconds)
    let home = try makeTemporaryHome()
    let keep = arguments.flag(.keep)
    let groupDirectory = home + "/AppGroup/" + group
    // A directory where a mailbox would go: every pass to "blocked" fails, and is journaled so.
    guard mkdir(home + "/AppGroup", 0o700) == 0, mkdir(groupDirectory, 0o700) == 0,
      mkdir(groupDirectory + "/blocked.archive", 0o700) == 0
    else {
      throw .failure(
        "cannot prepare the demo home \(DisplayText.field(home)): \(String(cString: strerror(errno)))")
    }
    let players = DemoPlayers(home: home)
    // On every way out (return, a failed write, a signal): the players end, the home goes.
    Termination.onExit {
      players.stop()
      if keep {
        diagnose("the demo home is kept at \(DisplayText.field(home))")
      } else {
        try? FileManager.default.removeItem(atPath: home)
      }
    }
    try players.start()
    if arguments.flag(.noUI) {
      return try printTraffic(home: home, seconds: seconds)
    }
    // The dashboard's own command line, over the demo's home: its options are the dashboard's.
    let theme = arguments.value(.theme).map { ["--theme", $0] } ?? []
    return try DashboardVerb.run(ParsedArguments([home] + theme, options: DashboardVerb.verb.allOptions))
  }

  /// `demo --no-ui`: each traffic entry as the model recognizes it, until the time is up or a
  /// signal arrives.
  static func printTraffic(home: String, seconds: Double?) throws(CommandError) -> ExitCode {
    let done = DispatchSemaphore(value: 0)
    let model: LiveModel
    do {
      model = try LiveModel(roots: [.home(home)]) { update in
        for entry in update.newTraffic {
          var line = DumpVerb.textLine(entry)
          if let transiting = entry.transiting { line += " transiting=" + DisplayText.field(transiting) }
          emit(line)
        }
      }
    } catch {
      throw .failure(error.description)
    }
    diagnose("demo traffic in \(DisplayText.field(home)); one line per entry")
    let interrupted = DemoSignals.install { done.signal() }
    _ = done.wait(timeout: seconds.map { .now() + $0 } ?? .distantFuture)
    model.cancel()
    _ = interrupted
    return .success
  }

  static func makeTemporaryHome() throws(CommandError) -> String {
    let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array((base + "/wormhole-demo-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
      guard let pointer = buffer.baseAddress, mkdtemp(pointer) != nil else { return nil }
      return String(cString: pointer)
    }
    guard let made else {
      throw .failure(
        "cannot make a temporary directory in \(DisplayText.field(base)): \(String(cString: strerror(errno)))"
      )
    }
    return made
  }
}

/// SIGINT and SIGTERM end `demo --no-ui` cleanly (the home is removed) instead of killing it.
enum DemoSignals {
  static func install(_ handler: @escaping @Sendable () -> Void) -> [DispatchSourceSignal] {
    [SIGINT, SIGTERM, SIGHUP].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler(handler: handler)
      source.activate()
      return source
    }
  }
}

/// The simulated app and extension: child processes of this program running the hidden
/// `demo-player` verb, each ending with its parent.
final class DemoPlayers: Sendable {
  private let home: String
  private let processes = Mutex<[pid_t]>([])

  init(home: String) { self.home = home }

  func start() throws(CommandError) {
    for role in ["app", "extension"] {
      var pid: pid_t = 0
      let arguments = ["wormhole-tui", "demo-player", "--home", home, "--role", role]
      var pointers = arguments.map { strdup($0) } + [nil]
      defer { for pointer in pointers { free(pointer) } }
      let spawned = posix_spawn(&pid, "/proc/self/exe", nil, nil, &pointers, environ)
      guard spawned == 0 else {
        stop()
        throw .failure("cannot start the demo's \(role) process: \(String(cString: strerror(spawned)))")
      }
      processes.withLock { $0.append(pid) }
    }
  }

  /// Ends the players and waits for them, so that nothing is left behind.
  func stop() {
    let pids = processes.withLock { list in
      defer { list = [] }
      return list
    }
    for pid in pids { kill(pid, SIGTERM) }
    for pid in pids {
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
  }
}
