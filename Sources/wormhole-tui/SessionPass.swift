import DevicePairing
import DeviceSession
import KeyedArchive
import WormholeVocabulary

/// `pass --transiting session-context|session-message|session-file --pair NAME --role ROLE`,
/// over ``PairedDeviceClient``: the verb becomes that role's device for as long as the send takes
/// (run lock, activation, the send, what the type waits for, stop), or sends through the
/// `device run` that holds the role.
enum SessionPass {
  /// The options `pass` adds for the session types.
  static let options = [
    OptionSpec(.pair, help: "session types: the pair of simulated devices"),
    OptionSpec(.role, help: "session types: phone or watch, the sending device"),
    OptionSpec(.replyTimeout, help: "session-message: wait this long for a reply and print it"),
    OptionSpec(.deliverIdentical, help: "session-context: deliver a context identical to the current one"),
  ]

  /// What a session-type `pass` needs that the file types do not, said when it is missing.
  static func requirement(_ type: TransitingType) -> String {
    "transiting type \(type.rawValue) is not available without a pair: it travels between a pair's simulated "
      + "devices; give --pair NAME --role phone|watch (create a pair with pair create)"
  }

  static func run(
    _ arguments: ParsedArguments, type: TransitingType, identifier: String, archive: [UInt8]
  ) throws(CommandError) -> ExitCode {
    guard arguments.value(.pair) != nil else { throw .usage(requirement(type)) }
    if arguments.value(.container) != nil {
      throw .usage("--container names a directory; session types go through --pair's devices")
    }
    let address = try PairArguments.address(arguments, verb: "pass --transiting \(type.rawValue)")
    let replyTimeout = try arguments.seconds(.replyTimeout)
    if replyTimeout != nil && type != .sessionMessage {
      throw .usage("--reply-timeout is for session-message only")
    }
    if arguments.flag(.deliverIdentical) && type != .sessionContext {
      throw .usage("--deliver-identical is for session-context only")
    }
    let client = PairedDeviceClient(
      store: PairArguments.store(arguments), address: address,
      applicationGroup: PairArguments.group(arguments),
      optionalDirectory: arguments.value(.directory))
    switch type {
    case .sessionMessage:
      let reply: [UInt8]?
      do throws(PairedDeviceError) {
        reply = try client.sendMessage(identifier: identifier, archive: archive, replyTimeout: replyTimeout)
      } catch {
        if case .session(.notReachable) = error,
          let stopped = stoppedCounterpart(of: address, in: PairArguments.store(arguments))
        {
          throw .failure(
            "not reachable (WCErrorCodeNotReachable 7007): the \(address.role.counterpart) of "
              + "\(PairDisplay.name(address.pair)) (pid \(stopped)) is stopped, and a live message waits for "
              + "no one; continue it (kill -CONT \(stopped)) and send again")
        }
        throw failure(error, otherwise: "pass from the \(address.role.counterpart)")
      }
      if let reply { emit(try SessionLines.reply(reply)) }
    case .sessionContext:
      let outcome: PairedDeviceClient.ContextOutcome
      do throws(PairedDeviceError) {
        outcome = try client.updateContext(
          identifier: identifier, archive: archive, deliveringIdentical: arguments.flag(.deliverIdentical))
      } catch {
        throw failure(error, otherwise: "pass from the \(address.role.counterpart)")
      }
      diagnose(contextLine(outcome, address: address))
    case .sessionFile:
      let outcome: PairedDeviceClient.TransferOutcome
      do throws(PairedDeviceError) {
        outcome = try client.transferFile(identifier: identifier, archive: archive)
      } catch {
        throw failure(error, otherwise: "pass from the \(address.role.counterpart)")
      }
      diagnose(transferLine(outcome, address: address))
    case .file, .coordinatedFile:
      break
    }
    return .success
  }

  /// Who the counterpart is in a line: with the pair's name when the verb was the device, as
  /// the running device says it otherwise.
  static func peer(_ address: DeviceAddress, route: PairedDeviceClient.Route) -> String {
    switch route {
    case .runningDevice: return "the \(address.role.counterpart)"
    case .stoppedDevice: return "the \(address.role.counterpart) of \(PairDisplay.name(address.pair))"
    }
  }

  /// What a context update did, as a line for standard error.
  static func contextLine(_ outcome: PairedDeviceClient.ContextOutcome, address: DeviceAddress) -> String {
    let peer = peer(address, route: outcome.route)
    switch outcome.update {
    case .unchanged:
      return
        "the context is unchanged: identical to the current one, it is not delivered (give --deliver-identical)"
    case .sent(let version):
      if outcome.isStored { return "context version \(version) was stored by \(peer)" }
      if case .runningDevice = outcome.route { return "context version \(version) was sent to \(peer)" }
      return
        "context version \(version) was sent to \(peer), not acknowledged yet: it is sent again when both run"
    case .queued(let version):
      return "context version \(version) is queued: \(peer) is not reachable; it is delivered when both run"
    }
  }

  /// What a transfer did, as a line for standard error.
  static func transferLine(_ outcome: PairedDeviceClient.TransferOutcome, address: DeviceAddress) -> String {
    let peer = peer(address, route: outcome.route)
    if outcome.isStored { return "transfer \(outcome.id) was stored by \(peer)" }
    switch outcome.route {
    case .runningDevice:
      return "transfer \(outcome.id) is "
        + (outcome.wasReachable
          ? "sent to \(peer)" : "queued: \(peer) is not reachable; it is delivered when both run")
    case .stoppedDevice:
      return "transfer \(outcome.id) is queued: \(peer) has not stored it; it is delivered when both run "
        + "(see transfers --pair)"
    }
  }

  /// The pid of `address`'s counterpart when it runs here but is stopped (SIGSTOP), else `nil`.
  static func stoppedCounterpart(of address: DeviceAddress, in store: PairStore) -> Int32? {
    guard let pid = RunLock.holder(at: store.directory(for: address.counterpart).runLockPath), pid > 0,
      RunLock.isStopped(pid: pid)
    else { return nil }
    return pid
  }

  /// The short messages the issue names for the two failures a sender meets most.
  static func failure(_ error: SessionError) -> CommandError {
    switch error {
    case .notReachable:
      return .failure(
        "not reachable (WCErrorCodeNotReachable 7007): the counterpart device is not running (start it with "
          + "device run), or, over a broker, one of the two is not connected to it"
      )
    case .replyTimedOut(let seconds):
      return .failure("reply timed out (7012): no reply came within \(seconds) s")
    default: return CommandError(error)
    }
  }

  /// A client's error as the verb's: the session's as ``failure(_:)`` says it, a device that
  /// runs but does not answer with what to do instead (`otherwise`).
  static func failure(_ error: PairedDeviceError, otherwise: String) -> CommandError {
    switch error {
    case .session(let session): return failure(session)
    case .store(let store): return CommandError(store)
    case .notAnswering(let address, let pid):
      return .failure(
        "the \(address.role) of \(PairDisplay.name(address.pair)) is running as device run "
          + "(\(pid.map { "pid \($0)" } ?? "starting")) and does not answer on its control socket; "
          + "stop it, or \(otherwise)")
    case .controlChannel, .routeRefused: return .failure(error.description)
    }
  }
}

extension TransitingType {
  /// Whether the type travels between a pair's devices (WatchConnectivity's three).
  var isSession: Bool { self == .sessionContext || self == .sessionMessage || self == .sessionFile }
}
