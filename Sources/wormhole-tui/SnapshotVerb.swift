import Dashboard
import DashboardRuntime
import Dispatch
import KeyedArchive
import MailboxModel
import MailboxWatcher
import Synchronization
import TerminalInput
import TerminalScreen
import TerminalTheme
import Wormhole

/// `wormhole-tui snapshot`: one frame of the dashboard as text, without a terminal.
enum SnapshotVerb {
  static let verb = Verb(
    name: "snapshot",
    synopsis:
      "[ROOT...|--device-set DIR] [--size COLSxROWS] [--theme NAME|PATH] [--keys KEYS] [--ansi] [OPTIONS]",
    summary: "Print one frame of the dashboard as plain text, for scripts and bug reports.",
    details: """
      The roots and the home's pairs of simulated devices are read once, KEYS are replayed (for example --keys 'jj<Enter>' or
      --keys '/button<Enter><Tab>'; see the README for the notation), and the frame is printed:
      plain text by default, with the theme's colours as ANSI escape sequences with --ansi.
      Actions that write are not performed: a snapshot never changes the disk.
      """,
    options: [
      OptionSpec(.size, help: "frame size (default 100x30)"),
      OptionSpec(.keys, help: "keystrokes to replay first"),
      OptionSpec(.ansi, help: "keep colours and attributes as escape sequences"),
    ]
      + DashboardVerb.options.filter {
        [Option.theme, .readOnly, .deviceSet, .readWrite].contains($0.option)
      },
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    let (width, height) = try size(arguments.value(.size) ?? "100x30")
    let keys: [Key]
    do {
      keys = try KeyNotation.keys(from: arguments.value(.keys) ?? "")
    } catch {
      throw .usage("--keys: \(error.description)")
    }
    // The theme first: one that does not load ends the snapshot, with or without --ansi.
    let environment = WormholeHome.currentEnvironment()
    let theme: Theme
    do {
      theme = try ThemeCatalog(environment: environment).startingTheme(arguments.value(.theme))
    } catch {
      throw .usage("--theme: " + DisplayText.escaped(error.description))
    }
    let (roots, readOnly, deviceSet) = try DeviceSetArguments.watched(arguments)
    let events = try initialEvents(roots)
    let now = DashboardLaunch.now()
    var state = DashboardState(
      model: ModelState(configuration: DashboardVerb.modelConfiguration()),
      rootPaths: roots.map(\.path.lossyText),
      width: width, height: height, now: now,
      isReadOnly: readOnly)
    if let deviceSet { state.showDeviceSet(deviceSet) }
    // Decodes are performed at once, here, as the loop's executor would; no other effect is: a
    // snapshot never writes.
    _ = state.update(.modelEvents(events, at: now), decodingWith: DecodedMessage.init(decoding:))
    // The pairs' branch as the live dashboard shows it on the same home: the store read once,
    // here (the dashboard's PairsSource reads it on a queue of its own, after the first frame).
    _ = state.update(
      .pairs(PairsSource.snapshots(of: PairArguments.store(arguments))),
      decodingWith: DecodedMessage.init(decoding:))
    for key in keys {
      _ = state.update(.key(key), decodingWith: DecodedMessage.init(decoding:))
      if state.isQuitting { break }
    }
    let screen = DashboardView.render(state)
    guard arguments.flag(.ansi) else {
      emitRaw(screen.lines.map { $0.trimmingTrailingSpaces() }.joined(separator: "\n") + "\n")
      return .success
    }
    // Colours as this terminal would show them (NO_COLOR and TERM=dumb keep attributes only).
    let capability = ColorCapability.detect(environment: environment)
    emitRaw(screen.ansiText(theme: theme.reduced(to: capability)))
    return .success
  }

  static func size(_ text: String) throws(CommandError) -> (Int, Int) {
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), (1...1000).contains(width),
      (1...1000).contains(height)
    else {
      throw .usage(
        "--size takes COLSxROWS between 1x1 and 1000x1000, such as 100x30, not \(DisplayText.field(text))")
    }
    return (width, height)
  }

  /// What the watcher finds below `roots` at start.
  static func initialEvents(_ roots: [WatchRoot]) throws(CommandError) -> [ModelEvent] {
    let collected = Mutex<[ModelEvent]>([])
    let queue = DispatchQueue(label: "wormhole.snapshot")
    let watcher: MailboxWatcher
    do {
      watcher = try MailboxWatcher(roots: roots, queue: queue) { events in
        collected.withLock { $0 += events }
      }
    } catch {
      throw .failure("\(error.description) (name an existing ROOT, or use --home, --group or --container)")
    }
    queue.sync { watcher.start() }
    watcher.cancel()
    return collected.withLock { $0 }
  }
}

extension String {
  fileprivate func trimmingTrailingSpaces() -> String {
    var text = self
    while text.last == " " { text.removeLast() }
    return text
  }
}
