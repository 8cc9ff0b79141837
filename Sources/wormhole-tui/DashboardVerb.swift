import Dashboard
import Glibc
import KeyedArchive
import MQTTClient
import MailboxModel
import MailboxWatcher
import TerminalTheme
import Wormhole

/// `wormhole-tui [ROOT...]` with no verb (or `wormhole-tui dashboard`): the ncurses dashboard.
enum DashboardVerb {
  static let options = [
    OptionSpec(.theme, help: "colour theme (t cycles; default dark)"),
    OptionSpec(.readOnly, help: "disable every action that writes"),
    OptionSpec(.mouse, help: "click to select, wheel to scroll"),
    OptionSpec(
      .history, help: "earlier versions kept per mailbox, for history, diff and replay (default 64)"),
    DeviceSetArguments.option, DeviceSetArguments.readWriteOption,
    OptionSpec(.broker, help: "also show the machines bridged to this MQTT broker (mqtt://HOST:PORT)"),
    RemoteWriteVerbs.timeoutOption,
  ]

  static let verb = Verb(
    name: "dashboard",
    synopsis:
      "[ROOT...|--device-set DIR] [--broker URL] [--theme NAME|PATH] [--read-only] [--mouse] [--history N] [OPTIONS]",
    summary: "Open the live dashboard (also what 'wormhole-tui [ROOT...]' does).",
    details: """
      Mailboxes of every wormhole directory below the roots (the wormhole home by default), their
      contents and history, and the traffic between processes, live. Press ? inside for the keys.
      Needs a terminal: for scripts and bug reports use 'wormhole-tui snapshot' (one frame as
      text) or 'wormhole-tui dump'.
      --device-set DIR watches the application groups of a CoreSimulator device set (the Devices
      folder of a Mac's ~/Library/Developer/CoreSimulator), named by device, runtime, paired
      device and group; its pairs and what was missing or damaged are in the message log (L).
      A device set is read-only, since it is usually a copy of a Mac's and writing there reaches
      no simulator: --read-write allows writes (a set mounted from a Mac whose simulators run).
      --broker URL adds a branch per machine bridged to that broker ('wormhole-tui bridge' on
      each): its presence, directories, mailboxes (contents, history, diff) and traffic.
      Remote pass, clear and replay are refused with the reason while its bridge refuses them;
      --remote-timeout SECONDS is how long one waits for the bridge's reply (10 by default).
      """,
    options: options, run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    let history = try arguments.integer(.history, minimum: 1)
    let remoteTimeout = try RemoteWriteVerbs.timeout(arguments)
    let terminalName = WormholeHome.currentEnvironment()["TERM"] ?? ""
    guard isatty(STDOUT_FILENO) == 1, isatty(STDIN_FILENO) == 1 else {
      throw .usage(
        "the dashboard needs a terminal (standard input and output are not one); "
          + "use 'wormhole-tui snapshot' for one frame as text, or 'wormhole-tui dump'")
    }
    guard !terminalName.isEmpty, terminalName != "dumb" else {
      throw .usage(
        "TERM is \(terminalName.isEmpty ? "not set" : "dumb"): the dashboard needs a terminal that can move "
          + "the cursor; use 'wormhole-tui snapshot' for one frame as text, or 'wormhole-tui dump'")
    }
    let (roots, readOnly, deviceSet) = try DeviceSetArguments.watched(arguments)
    // Checked before the terminal is taken: a bad URL or a missing libmosquitto is a usage error.
    let broker = try arguments.value(.broker).map { text throws(CommandError) in
      try BrokerAddress(argument: text)
    }
    let themes = ThemeCatalog(environment: WormholeHome.currentEnvironment())
    // A theme that does not load ends the start with its file, line and what was expected
    // (exit 2), before the terminal is taken; inside the dashboard `t` and `:theme` keep the
    // current theme and say why.
    let theme: Theme
    do {
      theme = try themes.startingTheme(arguments.value(.theme))
    } catch {
      throw .usage("--theme: " + DisplayText.escaped(error.description))
    }
    return try DashboardLaunch.run(
      roots: roots, readOnly: readOnly, themes: themes, theme: theme,
      mouse: arguments.flag(.mouse), model: modelConfiguration(historyDepth: history),
      pairsHome: PairArguments.store(arguments).home,
      deviceSet: deviceSet, broker: broker, remoteTimeout: remoteTimeout)
  }

  /// What the model keeps: `historyDepth` earlier versions a mailbox (`--history N`; 64 by
  /// default), and the watcher's stored-bytes limit, so that a version too large to keep says so
  /// with the limit that applied.
  static func modelConfiguration(historyDepth: Int? = nil) -> ModelConfiguration {
    var configuration = ModelConfiguration()
    if let historyDepth { configuration.historyDepth = historyDepth }
    configuration.storedByteLimit = MailboxWatcher.Configuration().maximumStoredBytes
    return configuration
  }
}
