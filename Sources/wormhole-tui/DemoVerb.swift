import Dashboard
import DevicePairing
import Dispatch
import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import MailboxWatcher
import Synchronization
import Wormhole

/// `wormhole-tui demo`: the dashboard over live simulated traffic in a temporary home, removed
/// on exit. Child processes play an app and its extension, and the phone and watch of the pair
/// `demo`, whose watch goes away for a while (``DemoSchedule``) and comes back.
enum DemoVerb {
  static let group = "group.com.example.demo"

  static let verb = Verb(
    name: "demo", synopsis: "[--no-ui] [--seconds N] [--keep] [--theme NAME|PATH]",
    summary: "Open the dashboard over live simulated traffic: an app, its extension, a phone and its watch.",
    details: """
      Two processes, an app and its extension, pass realistic messages in application group
      \(group): both file transiting types, notifications without a message, clears, a
      write that bypasses the journal, and a pass that fails. The pair "\(DemoDevicePlayer.pairName)" runs a
      simulated phone and watch, each a process with its own containers: session messages (the
      watch echoes those that wait for a reply, but one, whose reply times out), application
      contexts and file transfers, both ways. The watch stops \(seconds(DemoSchedule.standard.firstAbsence)) after the start, and every
      \(seconds(DemoSchedule.standard.period)) after that, for \(seconds(DemoSchedule.standard.absence)): meanwhile the phone's messages fail (not reachable,
      7007) and its contexts and transfers queue; when it returns it is handed the newest
      context and the queued transfers, in order. The home is removed on exit, with the
      processes, unless --keep is given (a last process removes it should the demo be killed).
      --no-ui prints each traffic entry as it happens, one line each with its transiting type,
      for --seconds N (default: until interrupted), and says on standard error when the watch
      stops and returns.
      """,
    options: [
      OptionSpec(.noUI, help: "print the traffic instead of opening the dashboard"),
      OptionSpec(.seconds, help: "stop after N seconds"),
      OptionSpec(.keep, help: "keep the temporary home and print its path"),
      OptionSpec(.theme, help: "colour theme for the dashboard"),
    ],
    usesLocation: false,
    run: run)

  /// "2.5 s", "15 s".
  private static func seconds(_ value: Double) -> String { value.shownAsSeconds + " s" }

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    let seconds = try arguments.seconds(.seconds)
    let home = try makeTemporaryHome()
    let keep = arguments.flag(.keep)
    let players = DemoPlayers(home: home, removesHome: !keep)
    // On every way out (return, a failed write, a signal): the players end, the home goes.
    Termination.onExit {
      players.stop()
      if keep {
        diagnose("the demo home is kept at \(DisplayText.field(home))")
      } else {
        try? FileManager.default.removeItem(atPath: home)
      }
    }
    try prepare(home)
    let noUI = arguments.flag(.noUI)
    try players.start(reporting: noUI ? reportWatch : nil)
    if noUI {
      return try printTraffic(home: home, seconds: seconds)
    }
    // The dashboard's own command line, over the demo's home (its mailboxes, and its pairs'
    // branch with the demo's pair): its options are the dashboard's.
    let theme = arguments.value(.theme).map { ["--theme", $0] } ?? []
    return try DashboardVerb.run(
      ParsedArguments(["--home", home] + theme, options: DashboardVerb.verb.allOptions))
  }

  /// The home's application group, with a directory where a mailbox would go (every pass to
  /// "blocked" fails, and is journaled so), and the pair with both devices' group containers,
  /// there before anything watches them.
  static func prepare(_ home: String) throws(CommandError) {
    let groupDirectory = home + "/AppGroup/" + group
    guard mkdir(home + "/AppGroup", 0o700) == 0, mkdir(groupDirectory, 0o700) == 0,
      mkdir(groupDirectory + "/blocked.archive", 0o700) == 0
    else {
      throw .failure(
        "cannot prepare the demo home \(DisplayText.field(home)): \(String(cString: strerror(errno)))")
    }
    let store = PairStore(home: home)
    let pair = try PairArguments.attempt { () throws(PairStoreError) in
      try store.create(try PairStore.name(DemoDevicePlayer.pairName))
    }
    for device in pair.devices {
      let path = store.directory(for: device).path + "/AppGroup/" + group
      do {
        try FileManager.default.createDirectory(
          atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      } catch {
        throw .failure(
          "cannot prepare the demo's \(device.role) containers \(DisplayText.field(path)): \(error)")
      }
    }
  }

  /// `demo --no-ui`: when the watch stops and returns, on standard error.
  static func reportWatch(_ running: Bool) {
    if running {
      diagnose("the watch is back: it is handed the newest context and the queued transfers")
    } else {
      diagnose("the watch stops: the phone's messages fail (7007), its contexts and transfers queue")
    }
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
    // SIGINT, SIGTERM and SIGHUP end `demo --no-ui` cleanly (the home is removed) instead of
    // killing it.
    // The sources must outlive the wait: `_ = sources` after it is no use of them, so a release
    // build released them at once, and SIGTERM, caught but no longer handled, was ignored.
    let interrupted = Termination.handle([SIGINT, SIGTERM, SIGHUP]) { done.signal() }
    withExtendedLifetime(interrupted) {
      _ = done.wait(timeout: seconds.map { .now() + $0 } ?? .distantFuture)
    }
    model.cancel()
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
