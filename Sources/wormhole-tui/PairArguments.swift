import DevicePairing
import DeviceSession
import KeyedArchive
import Wormhole

/// The options that name a pair's device (`--pair NAME --role phone|watch`), shared by `pair`,
/// `device run`, `transfers` and the verbs that work on a device's containers or session.
enum PairArguments {
  /// `--home` for the verbs that take no other location option.
  static let homeOption = OptionSpec(
    .home, help: "wormhole home (default $WORMHOLE_HOME, else $XDG_DATA_HOME/wormhole)")
  static let pairOption = OptionSpec(.pair, help: "the pair of simulated devices (see pair create)")
  static let roleOption = OptionSpec(.role, help: "phone or watch: which device of the pair")

  /// What a verb adds to work on a device's own containers instead of the home's.
  static let deviceOptions = [
    OptionSpec(.pair, help: "use a device's containers: the pair (with --role)"),
    OptionSpec(.role, help: "phone or watch: the device of --pair"),
  ]

  /// The pair store of the home the arguments name.
  static func store(_ arguments: ParsedArguments) -> PairStore {
    PairStore(
      home: arguments.value(.home) ?? WormholeHome.defaultPath(environment: WormholeHome.currentEnvironment())
    )
  }

  /// The result of a pair store's operation, its error turned into the command's.
  static func attempt<Value>(_ body: () throws(PairStoreError) -> Value) throws(CommandError) -> Value {
    do { return try body() } catch { throw CommandError(error) }
  }

  /// The validated pair name (a usage error, escaped, for an invalid one).
  static func name(_ text: String) throws(CommandError) -> PairName {
    do { return try PairStore.name(text) } catch { throw CommandError(error) }
  }

  /// The device `--pair` and `--role` name, both required.
  static func address(_ arguments: ParsedArguments, verb: String) throws(CommandError) -> DeviceAddress {
    guard let pair = arguments.value(.pair) else {
      throw .usage("\(verb) needs --pair NAME and --role phone|watch (see --help)")
    }
    return DeviceAddress(pair: try name(pair), role: try role(arguments, verb: verb))
  }

  static func role(_ arguments: ParsedArguments, verb: String) throws(CommandError) -> DeviceRole {
    guard let text = arguments.value(.role) else {
      throw .usage("\(verb) needs --role phone|watch with --pair")
    }
    guard let role = DeviceRole.allCases.first(where: { Verbs.matches(text, $0.rawValue) }) else {
      throw .usage("--role is phone or watch, not \(DisplayText.field(text))")
    }
    return role
  }

  /// The application group: `--group`, else `$WORMHOLE_GROUP`, else `default` (as for the home).
  static func group(_ arguments: ParsedArguments) -> String {
    arguments.value(.group)
      ?? WormholeHome.currentEnvironment()["WORMHOLE_GROUP"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
  }

  /// The device's directory, which stands for the home of its containers (`<device>/AppGroup/<group>`),
  /// when `--pair` is given; `nil` otherwise. The pair must exist.
  static func deviceHome(_ arguments: ParsedArguments) throws(CommandError) -> String? {
    guard arguments.declares(.pair) else { return nil }
    guard arguments.value(.pair) != nil else {
      if arguments.declares(.role), arguments.value(.role) != nil {
        throw .usage("--role names a device of --pair: give --pair NAME too")
      }
      return nil
    }
    if arguments.declares(.container), arguments.value(.container) != nil {
      throw .usage("--pair uses the device's containers: give --pair or --container, not both")
    }
    let address = try address(arguments, verb: "--pair")
    let store = store(arguments)
    do { _ = try store.pair(named: address.pair) } catch { throw CommandError(error) }
    return store.directory(for: address).path
  }
}

extension CommandError {
  /// The exit code a pair store's error deserves: 2 for a name that breaks the rules, else 3.
  init(_ error: PairStoreError) {
    switch error {
    case .invalidName: self.init(message: error.description, code: .usage)
    case .session(let session): self.init(session)
    default: self.init(message: error.description, code: .failure)
    }
  }

  /// A session's error: 2 for an identifier no mailbox can have, else 3.
  init(_ error: SessionError) {
    switch error {
    case .invalidIdentifier: self.init(message: error.description, code: .usage)
    default: self.init(message: error.description, code: .failure)
    }
  }
}
