import ArchivedValues
import Dispatch
import FleetProtocol
import Glibc
import MQTTClient
import MailboxWatcher
import WormholeVocabulary

/// `wormhole-tui bridge --broker URL [ROOT...] [--name MACHINE]`: this machine's mailboxes and
/// traffic, live, on a broker (see ``BridgeTopics`` for the layout).
enum BridgeVerb {
  static let verb = Verb(
    name: "bridge", synopsis: "--broker URL [ROOT...] [--name MACHINE] [OPTIONS]",
    summary: "Publish this machine's mailboxes and traffic, live, on an MQTT broker.",
    details: """
      Wormhole directories are found as for dump (ROOTs, --group, --container, else the home).
      Each mailbox is a retained message on
      wormhole/v1/machines/MACHINE/mailboxes/DIRECTORY/IDENTIFIER (removed with an empty
      retained message once cleared), each new traffic entry a QoS 1 message on
      wormhole/v1/machines/MACHINE/traffic, and wormhole/v1/machines/MACHINE/presence a
      retained "online" with a Last Will "offline". Topic levels are percent-encoded. MACHINE
      is --name, else the host name. wormhole/v1/machines/MACHINE/bridge holds, retained,
      {"version":1,"remote_writes":true|false,"reason":...}. By default the bridge is
      read-only: it applies nothing from the broker (it only empties retained mailbox topics of
      its machine that an earlier run left for mailboxes gone since). With
      --allow-remote-writes it also applies the pass, clear and replay requests published on
      wormhole/v1/machines/MACHINE/requests (journaled here, sender "bridge MACHINE (remote)"),
      in the directories it publishes only, and answers each on its reply_to; every refusal
      is answered with the reason and said on standard error. A replay of a journal record
      takes the version from the bridge's history: --history N earlier versions a mailbox (64
      by default), as the dashboard's; an older one is refused, naming the nearest kept
      version. SIGINT and SIGTERM publish
      "offline", empty the bridge info and stop it (exit 0).
      """,
    options: [
      OptionSpec(.broker, help: "the MQTT broker (\(Option.brokerAddressHelp))"),
      OptionSpec(.name, help: "this machine's name on the broker (default: the host name)"),
      OptionSpec(.allowRemoteWrites, help: "apply pass, clear and replay requests from the broker"),
      OptionSpec(
        .history, help: "earlier versions kept per mailbox, for replay-record requests (default 64)"),
    ] + PairArguments.deviceOptions,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    guard let text = arguments.value(.broker) else { throw .usage("bridge needs --broker mqtt://HOST:PORT") }
    let history = try arguments.integer(.history, minimum: 1)
    let broker = try BrokerAddress(argument: text)
    let machine = arguments.value(.name) ?? hostName()
    guard !machine.isEmpty, machine.utf8.count <= 255 else {
      throw .usage("--name must be 1 to 255 bytes")
    }
    let roots = try DumpVerb.roots(arguments)
    let allowsWrites = arguments.flag(.allowRemoteWrites)
    let publisher = BridgePublisher(machine: machine, info: BridgeRequests.info(allowsWrites: allowsWrites))
    let requests = BridgeRequests(machine: machine, allowsWrites: allowsWrites) { publisher.announceInfo() }
    let client: MQTTClient
    do throws(MQTTError) {
      let will = MQTTMessage(
        topic: BridgeTopics.presence(machine: machine), payload: Array("offline".utf8), quality: .atLeastOnce,
        isRetained: true)
      client = try MQTTClient(
        clientIdentifier: "wormhole-bridge-\(BridgeTopics.encoded(machine))-\(getpid())", cleanSession: true,
        will: will, maximumPayloadBytes: RemoteRequest.maximumPayloadByteCount,
        // A steady stream of QoS 1 publications: see `disablesNagle` (4.7x the changes a second);
        // published in batches, one per model update: see `coalescesWrites`.
        disablesNagle: true, coalescesWrites: true
      ) { event in
        switch event {
        case .connected:
          publisher.connected()
          requests.connected()
        case .refused(let reason): diagnose("bridge: the broker refused the connection: \(reason)")
        case .disconnected(let reason):
          publisher.disconnected()
          // A clean stop (SIGINT, SIGTERM) disconnects too, saying "disconnected".
          if reason != "disconnected" { diagnose("bridge: disconnected (\(reason)); reconnecting") }
        case .received(let message):
          publisher.retainedSeen(message)
          requests.received(message)
        case .dropped(let reason): diagnose("bridge: dropped a message from the broker: \(reason)")
        case .published: break
        }
      }
    } catch {
      throw .failure(error.description)
    }
    let model: LiveModel
    do {
      // As the dashboard's: `--history N` versions a mailbox, which replay-record requests take.
      let configuration = DashboardVerb.modelConfiguration(historyDepth: history)
      model = try LiveModel(roots: roots, configuration: configuration) { publisher.modelUpdated($0) }
    } catch {
      throw .failure("\(error.description) (name an existing ROOT, or use --home, --group or --container)")
    }
    publisher.attach(model: model, client: client)
    requests.attach(model: model, client: client)
    do throws(MQTTError) { try client.connect(to: broker) } catch { throw .failure(error.description) }
    let sources = Termination.handle {
      requests.goOffline()
      publisher.goOffline()
      client.disconnect()
      Termination.exit(.success)
    }
    let count = model.snapshot.directories.count
    diagnose(
      "bridging \(count) wormhole director\(count == 1 ? "y" : "ies") as \(DisplayText.field(machine)) to \(broker)"
        + (requests.allowsWrites ? ", applying remote writes" : ", read-only")
    )
    withExtendedLifetime((sources, model, client)) { dispatchMain() }
  }

  /// The host name, or "localhost" when there is none.
  static func hostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
    let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return name.isEmpty ? "localhost" : name
  }
}
