import Dashboard
import DashboardRuntime
import DevicePairing
import FleetClient
import Glibc
import KeyedArchive
import MQTTClient
import MailboxModel
import MailboxWatcher
import TerminalBackend
import TerminalTheme

/// Builds the dashboard's real parts (ncurses, the watcher, the mailbox operations, the pairs'
/// devices through DevicePairing's client) and runs the loop of ``DashboardRuntime`` over them.
/// Nothing else of the dashboard lives in the executable.
enum DashboardLaunch {
  /// Runs the dashboard on `roots` until the operator quits (`.success`) or a signal ends it
  /// (the process ends by that signal, after the clean-ups). The pairs of simulated devices
  /// under `pairsHome` are the tree's pairs' branch.
  static func run(
    roots: [WatchRoot], readOnly: Bool, themes: ThemeCatalog, theme: Theme, mouse: Bool,
    model: ModelConfiguration, pairsHome: String, deviceSet: DeviceSetLabels? = nil,
    broker: BrokerAddress? = nil, remoteTimeout: Double = RemoteWriteClient.defaultTimeout
  ) throws(CommandError) -> ExitCode {
    let roots = withPeerFolders(roots, pairsHome: pairsHome)
    let source: MailboxWatcherSource
    do {
      source = try MailboxWatcherSource(roots: roots)
    } catch {
      throw .failure("\(error.description) (name an existing ROOT, or use --home, --group or --container)")
    }
    var configuration = DashboardConfiguration(
      rootPaths: roots.map(\.path.lossyText), isReadOnly: readOnly, mouse: mouse, themes: themes,
      theme: theme, model: model, deviceSet: deviceSet)
    configuration.broker = broker?.description
    var messageSources: [any DashboardMessageSource] = [
      PairsSource(home: pairsHome), PeersSource(home: pairsHome),
    ]
    if let broker {
      messageSources.append(FleetSource(broker: broker, clientIdentifier: "wormhole-dashboard-\(getpid())"))
    }
    let loop: DashboardLoop
    do {
      loop = try DashboardLoop(
        terminal: Terminal(), source: source,
        executor: MailboxEffectExecutor(
          pairs: DevicePairOperations(), isReadOnly: readOnly,
          remoteWrites: broker.map { FleetRemoteWrites(broker: $0, timeout: remoteTimeout) }),
        configuration: configuration,
        messageSources: messageSources)
    } catch {
      throw .failure(error.description)
    }
    let exit: DashboardExit
    do {
      exit = try loop.run()
    } catch {
      throw .failure(error.description)
    }
    switch exit {
    case .quit: return .success
    case .interrupted(let signal): Termination.end(bySignal: signal)
    }
  }

  /// `roots`, and the running peers' folders under `pairsHome` (`<home>/peers`, a tree: each
  /// peer's folder holds its traffic journal) when that exists and no root covers it, so that
  /// the peers' traffic shows in the traffic pane and in each peer's contents.
  static func withPeerFolders(_ roots: [WatchRoot], pairsHome: String) -> [WatchRoot] {
    let peers = pairsHome + "/" + PeerDirectory.peersDirectoryName
    var status = stat()
    guard stat(peers, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return roots }
    let covered = roots.contains { root in
      let path = root.path.lossyText
      return root.kind == .tree && (peers == path || peers.hasPrefix(path == "/" ? "/" : path + "/"))
    }
    return covered ? roots : roots + [WatchRoot(path: peers, kind: .tree)]
  }

  /// Now, in milliseconds since 1970, as the dashboard reads it.
  static func now() -> Int64 { SystemClock().now() }
}
