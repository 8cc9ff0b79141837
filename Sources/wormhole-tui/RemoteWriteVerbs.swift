import FleetClient
import FleetProtocol
import Foundation
import KeyedArchive
import MQTTClient
import WormholeVocabulary

/// The `--broker URL --machine M` branches of `pass` and `clear`: the write goes to machine M's
/// bridge (`bridge --allow-remote-writes`), which applies it there, journaled, and replies.
/// Exit 0 when it was applied, 3 with the bridge's reason when it was refused (or no reply came
/// in time, or the bridge is offline or read-only), 2 for a wrong command line.
enum RemoteWriteVerbs {
  /// `--remote-timeout SECONDS`, for `pass`/`clear --broker` and the fleet dashboard.
  static let timeoutOption = OptionSpec(
    .remoteTimeout,
    help:
      "with --broker: how long a remote write waits for the bridge's reply "
      + "(\(RemoteWriteClient.timeoutRange.lowerBound) to \(Int(RemoteWriteClient.timeoutRange.upperBound)) s; "
      + "default \(Int(RemoteWriteClient.defaultTimeout)))")

  /// The options `pass` and `clear` add for a remote write.
  static let options = [
    OptionSpec(.broker, help: "write through machine M's bridge on this broker: " + Option.brokerAddressHelp),
    OptionSpec(.machine, help: "with --broker: the bridged machine (its bridge's --name)"),
    timeoutOption,
  ]

  /// Whether the command line asks for a remote write.
  static func isRemote(_ arguments: ParsedArguments) -> Bool {
    arguments.value(.broker) != nil || arguments.value(.machine) != nil
      || arguments.value(.remoteTimeout) != nil
  }

  /// The reply timeout `--remote-timeout` gives (the default without it); a usage error (exit 2)
  /// with the rule for a value that is not one, or when there is no `--broker` to write through.
  static func timeout(_ arguments: ParsedArguments) throws(CommandError) -> Double {
    guard let text = arguments.value(.remoteTimeout) else { return RemoteWriteClient.defaultTimeout }
    guard arguments.value(.broker) != nil else {
      throw .usage("--remote-timeout is for remote writes: give --broker URL too")
    }
    if let problem = RemoteWriteClient.timeoutProblem(text) { throw .usage("--remote-timeout: " + problem) }
    return Double(text) ?? RemoteWriteClient.defaultTimeout
  }

  /// `pass --broker URL --machine M [--directory D] IDENTIFIER [VALUE | --string TEXT | --archive FILE]`.
  static func pass(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    let (client, machine) = try target(arguments, verb: "pass")
    guard let identifier = arguments.positional.first else {
      throw .usage("pass needs an IDENTIFIER (see --help)")
    }
    guard arguments.positional.count <= 2 else {
      throw .usage("pass takes one IDENTIFIER and at most one VALUE; quote a JSON value with spaces")
    }
    try validate(identifier)
    for option in [Option.lines, .pair, .role, .durable, .sender] where isGiven(option, in: arguments) {
      throw .usage("--\(option.name) is not for a remote pass (--broker)")
    }
    let sources = [
      arguments.positional.count == 2, arguments.value(.string) != nil, arguments.value(.archive) != nil,
    ].filter { $0 }.count
    guard sources <= 1 else { throw .usage("give only one of VALUE, --string and --archive") }
    var archive: [UInt8]?
    do {
      if arguments.positional.count == 2 {
        archive = try KeyedArchiveEncoder().encodeBytes(
          try PassVerb.parseJSON(arguments.positional[1], what: "VALUE", hint: PassVerb.stringHint))
      } else if let text = arguments.value(.string) {
        archive = try KeyedArchiveEncoder().encodeBytes(.string(text))
      } else if let file = arguments.value(.archive) {
        archive = [UInt8](try PassVerb.readArchive(file))
      }
    } catch let error as CommandError {
      throw error
    } catch {
      throw .failure("cannot archive VALUE: \(error)")
    }
    let transiting = try PassVerb.transitingType(arguments)
    return try perform(
      .pass, client: client, machine: machine, arguments: arguments, identifier: identifier, archive: archive,
      transiting: transiting)
  }

  /// `clear --broker URL --machine M [--directory D] IDENTIFIER... | --all`: `--all` is one
  /// clear-all request, journaled on M as one clear-all.
  static func clear(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    let (client, machine) = try target(arguments, verb: "clear")
    let all = arguments.flag(.all)
    guard all != !arguments.positional.isEmpty else {
      throw .usage(
        all ? "give identifiers or --all, not both" : "clear needs IDENTIFIER... or --all (see --help)")
    }
    for identifier in arguments.positional { try validate(identifier) }
    for option in [Option.pair, .role, .sender] where isGiven(option, in: arguments) {
      throw .usage("--\(option.name) is not for a remote clear (--broker)")
    }
    let transiting = try PassVerb.transitingType(arguments)
    if all {
      return try perform(
        .clearAll, client: client, machine: machine, arguments: arguments, identifier: nil, archive: nil,
        transiting: transiting)
    }
    for identifier in arguments.positional {
      _ = try perform(
        .clear, client: client, machine: machine, arguments: arguments, identifier: identifier, archive: nil,
        transiting: transiting)
    }
    return .success
  }

  /// Whether `option` (declared by the verb or not) is on the command line.
  private static func isGiven(_ option: Option, in arguments: ParsedArguments) -> Bool {
    guard arguments.declares(option) else { return false }
    return option.placeholder == nil ? arguments.flag(option) : arguments.value(option) != nil
  }

  private static func target(_ arguments: ParsedArguments, verb: String) throws(CommandError) -> (
    RemoteWriteClient, String
  ) {
    guard let text = arguments.value(.broker), let machine = arguments.value(.machine), !machine.isEmpty
    else {
      throw .usage("a remote \(verb) needs both --broker mqtt://HOST:PORT and --machine M")
    }
    for option in [Option.home, .group, .container] where isGiven(option, in: arguments) {
      throw .usage(
        "--\(option.name) names a local directory: a remote \(verb) takes --directory D (the whole path on M)"
      )
    }
    let timeout = try timeout(arguments)
    return (RemoteWriteClient(broker: try BrokerAddress(argument: text), timeout: timeout), machine)
  }

  private static func perform(
    _ operation: RemoteRequest.Operation, client: RemoteWriteClient, machine: String,
    arguments: ParsedArguments,
    identifier: String?, archive: [UInt8]?, transiting: TransitingType
  ) throws(CommandError) -> ExitCode {
    let reply: RemoteReply
    do throws(RemoteWriteError) {
      reply = try client.perform(
        operation, on: machine, directory: arguments.value(.directory).map { FileName($0) },
        identifier: identifier.map { FileName($0) }, archive: archive, transiting: transiting)
    } catch {
      switch error {
      case .directoryNeeded, .invalidRequest: throw .usage(error.description)
      default: throw .failure(error.description)
      }
    }
    guard reply.isOK else {
      throw .failure(
        "the bridge of \(DisplayText.field(machine)) refused the \(operation.rawValue): \(reply.error ?? "no reason given")"
      )
    }
    return .success
  }
}
