import DevicePairing
import DeviceSession
import KeyedArchive
import WormholeVocabulary

/// `transfers --pair NAME [--role ROLE] [--json]` and `transfers cancel ID --pair NAME --role ROLE`:
/// the session-file transfers a pair's devices have queued and their counterparts not yet stored.
enum TransfersVerb {
  static let verb = Verb(
    name: "transfers",
    synopsis: "[cancel ID] --pair NAME [--role phone|watch] [--group G] [--json] [--home DIR]",
    summary: "List a pair's queued file transfers, or cancel one that was not sent.",
    details: """
      Each outstanding transfer is one line, oldest first per device: 'ROLE ID IDENTIFIER BYTES
      TIME', or with --json {"role", "id", "identifier", "bytes", "time", "metadata"} (metadata as
      WatchConnectivity carries it: {"identifier": …}). --role lists one device's only.
      cancel ID removes a transfer of the --role device from its queue: it is never delivered.
      While the device is down it works on the queue on disk; while device run holds the role,
      through its control socket (a transfer already sent cannot be recalled, exit 3). A cancel
      on disk is journaled (delivery cancelled) in the --group journal, as the device would.
      """,
    options: [
      PairArguments.pairOption, PairArguments.roleOption,
      OptionSpec(.json, help: "print one JSON object per transfer"),
      OptionSpec(.group, help: "the device's application group (default $WORMHOLE_GROUP, else \"default\")"),
      PairArguments.homeOption,
    ],
    usesLocation: false,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    let store = PairArguments.store(arguments)
    if let action = arguments.positional.first {
      guard Verbs.matches(action, "cancel") else {
        throw .usage("unknown transfers action \(DisplayText.field(action)); the one action is cancel ID")
      }
      guard arguments.positional.count == 2 else { throw .usage("transfers cancel takes one ID") }
      let text = arguments.positional[1]
      guard let id = UInt64(text) else {
        throw .usage("a transfer ID is a whole number, not \(DisplayText.field(text))")
      }
      let address = try PairArguments.address(arguments, verb: "transfers cancel")
      // A cancel on disk is journaled in the group's journal, as the running device would.
      let client = PairedDeviceClient(
        store: store, address: address, applicationGroup: PairArguments.group(arguments))
      let route: PairedDeviceClient.Route
      do throws(PairedDeviceError) {
        route = try client.cancelTransfer(id: id)
      } catch {
        switch error {
        case .notAnswering(_, let pid):
          throw .failure(
            "the \(address.role) of \(PairDisplay.name(address.pair)) is running (pid \(pid ?? 0)) and does not "
              + "answer on its control socket; stop it first")
        case .session(let session): throw SessionPass.failure(session)
        case .store(let store): throw CommandError(store)
        case .controlChannel, .routeRefused: throw .failure(error.description)
        }
      }
      switch route {
      case .runningDevice: diagnose("cancelled transfer \(id): it is never delivered")
      case .stoppedDevice: diagnose("cancelled transfer \(id) of the \(address.role): it is never delivered")
      }
      return .success
    }
    guard let pairText = arguments.value(.pair) else {
      throw .usage("transfers needs --pair NAME (see --help)")
    }
    let pair = try PairArguments.name(pairText)
    _ = try PairArguments.attempt { () throws(PairStoreError) in try store.pair(named: pair) }
    let roles =
      arguments.value(.role) == nil
      ? DeviceRole.allCases : [try PairArguments.role(arguments, verb: "transfers")]
    for role in roles {
      let address = DeviceAddress(pair: pair, role: role)
      let transfers = try PairArguments.attempt { () throws(PairStoreError) in
        try store.transfers(of: address)
      }
      for transfer in transfers {
        emit(arguments.flag(.json) ? jsonLine(transfer, role: role) : textLine(transfer, role: role))
      }
    }
    return .success
  }

  static func time(_ transfer: FileTransfer) -> String {
    UTCTimestamp.text(ofMilliseconds: transfer.time / 1_000_000)
  }

  static func textLine(_ transfer: FileTransfer, role: DeviceRole) -> String {
    "\(role) \(transfer.id) \(DisplayText.field(transfer.identifier)) \(transfer.payload.count) \(time(transfer))"
  }

  static func jsonLine(_ transfer: FileTransfer, role: DeviceRole) -> String {
    let identifier = DisplayText.jsonString(transfer.identifier)
    return "{\"role\":\"\(role)\",\"id\":\(transfer.id),\"identifier\":\(identifier)"
      + ",\"bytes\":\(transfer.payload.count),\"time\":\"\(time(transfer))\""
      + ",\"metadata\":{\"identifier\":\(identifier)}}"
  }
}
