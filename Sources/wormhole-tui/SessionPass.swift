import DevicePairing
import DeviceSession
import Dispatch
import Glibc
import KeyedArchive
import Synchronization
import WormholeVocabulary

/// `pass --transiting session-context|session-message|session-file --pair NAME --role ROLE`: the
/// verb becomes that role's device for as long as the send takes (run lock, activation, the
/// send, what the type waits for, stop).
enum SessionPass {
  /// The options `pass` adds for the session types.
  static let options = [
    OptionSpec(.pair, help: "session types: the pair of simulated devices"),
    OptionSpec(.role, help: "session types: phone or watch, the sending device"),
    OptionSpec(.replyTimeout, help: "session-message: wait this long for a reply and print it"),
    OptionSpec(.deliverIdentical, help: "session-context: deliver a context identical to the current one"),
  ]

  /// How long a reachable counterpart has to acknowledge a context or transfer before the verb
  /// stops anyway (it stays queued and is sent again when both run).
  static let acknowledgementSeconds = 10.0
  /// How long to wait for the link to a running counterpart to come up.
  static let connectionSeconds = 5.0

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
    let store = PairArguments.store(arguments)
    let device: SimulatedDevice
    do {
      device = try SimulatedDevice(
        store: store, address: address, applicationGroup: PairArguments.group(arguments),
        optionalDirectory: arguments.value(.directory))
    } catch {
      if case .alreadyRunning(_, let pid) = error {
        return try throughRunningDevice(
          arguments, type: type, address: address, pid: pid, identifier: identifier, archive: archive,
          replyTimeout: replyTimeout, store: store)
      }
      throw CommandError(error)
    }
    defer { device.stop() }
    let events = DeliveryLog()
    device.session.setDeliveryHandler { events.append($0) }
    do throws(SessionError) {
      try device.session.activate()
    } catch {
      throw CommandError(error)
    }
    // A running counterpart is connected to as the link starts; its reachability comes from the
    // link's thread, so wait for it rather than failing a message that would have gone.
    let counterpart = store.directory(for: address.counterpart)
    if RunLock.holder(at: counterpart.runLockPath) != nil {
      _ = events.wait(seconds: connectionSeconds) { _ in device.session.isReachable }
    }
    let peer = "the \(address.role.counterpart) of \(PairDisplay.name(address.pair))"
    switch type {
    case .sessionMessage:
      return try sendMessage(device.session, identifier: identifier, archive: archive, timeout: replyTimeout)
    case .sessionContext:
      let update: SessionEngine.ContextUpdate
      do throws(SessionError) {
        update = try device.session.updateApplicationContext(
          archive, identifier: identifier, deliveringIdentical: arguments.flag(.deliverIdentical))
      } catch {
        throw CommandError(error)
      }
      switch update {
      case .unchanged:
        diagnose(
          "the context is unchanged: identical to the current one, it is not delivered (give --deliver-identical)"
        )
      case .sent(let version):
        let stored = events.wait(seconds: acknowledgementSeconds, polling: 0.002) { _ in
          !device.session.hasUndeliveredContext
        }
        diagnose(
          stored
            ? "context version \(version) was stored by \(peer)"
            : "context version \(version) was sent to \(peer), not acknowledged yet: it is sent again when both run"
        )
      case .queued(let version):
        diagnose(
          "context version \(version) is queued: \(peer) is not reachable; it is delivered when both run")
      }
    case .sessionFile:
      let transfer: FileTransfer
      do throws(SessionError) {
        transfer = try device.session.transferFile(archive, identifier: identifier)
      } catch {
        throw CommandError(error)
      }
      if device.session.isReachable {
        let stored = events.wait(seconds: acknowledgementSeconds) { delivery in
          delivery == .transferFinished(transfer.id)
        }
        if stored {
          diagnose("transfer \(transfer.id) was stored by \(peer)")
          return .success
        }
      }
      diagnose(
        "transfer \(transfer.id) is queued: \(peer) has not stored it; it is delivered when both run "
          + "(see transfers --pair)")
    case .file, .coordinatedFile:
      break
    }
    return .success
  }

  /// Sends through the `device run` that holds the role, on its control socket.
  private static func throughRunningDevice(
    _ arguments: ParsedArguments, type: TransitingType, address: DeviceAddress, pid: Int32?,
    identifier: String,
    archive: [UInt8], replyTimeout: Double?, store: PairStore
  ) throws(CommandError) -> ExitCode {
    var request = DeviceFrame(
      kind: .message, identifier: identifier, sender: address.role, time: 0, payload: archive)
    switch type {
    case .sessionContext:
      request.kind = .context
      if arguments.flag(.deliverIdentical) { request.flags = .deliversIdentical }
    case .sessionFile: request.kind = .transfer
    default:
      if let replyTimeout {
        request.flags = .replyRequested
        request.time = Int64(min(replyTimeout, 1e9) * 1e9)
      }
    }
    let response = try ControlChannel.send(
      request, to: store.directory(for: address), waiting: (replyTimeout ?? 0) + 30)
    guard let response else {
      throw .failure(
        "the \(address.role) of \(PairDisplay.name(address.pair)) is running as device run "
          + "(\(pid.map { "pid \($0)" } ?? "starting")) and does not answer on its control socket; "
          + "stop it, or pass from the \(address.role.counterpart)")
    }
    if !response.text.isEmpty { diagnose(response.text) }
    if let reply = response.reply { emit(try SessionLines.reply(reply)) }
    return response.code
  }

  private static func sendMessage(
    _ session: SessionEngine, identifier: String, archive: [UInt8], timeout: Double?
  ) throws(CommandError) -> ExitCode {
    guard let timeout else {
      do throws(SessionError) {
        try session.sendMessage(archive, identifier: identifier)
      } catch {
        throw failure(error)
      }
      return .success
    }
    let result = Mutex<Result<[UInt8], SessionError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    do throws(SessionError) {
      try session.sendMessage(archive, identifier: identifier, replyTimeout: timeout) { outcome in
        result.withLock { $0 = outcome }
        done.signal()
      }
    } catch {
      throw failure(error)
    }
    done.wait()
    switch result.withLock({ $0 }) {
    case .success(let reply)?:
      emit(try SessionLines.reply(reply))
      return .success
    case .failure(let error)?: throw failure(error)
    case nil: throw .failure("no reply and no error came back")
    }
  }

  /// The short messages the issue names for the two failures a sender meets most.
  static func failure(_ error: SessionError) -> CommandError {
    switch error {
    case .notReachable:
      return .failure(
        "not reachable (WCErrorCodeNotReachable 7007): the counterpart device is not running; start it with device run"
      )
    case .replyTimedOut(let seconds):
      return .failure("reply timed out (7012): no reply came within \(seconds) s")
    default: return CommandError(error)
    }
  }
}

extension TransitingType {
  /// Whether the type travels between a pair's devices (WatchConnectivity's three).
  var isSession: Bool { self == .sessionContext || self == .sessionMessage || self == .sessionFile }
}
