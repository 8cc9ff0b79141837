import ArchivedValues
import Dispatch
import FleetModel
import FleetProtocol
import Glibc
import MQTTClient
import Synchronization
import TerminalScreen
import WormholeVocabulary

/// `dump --broker URL [--json]`: the fleet's retained state, collected once and printed.
///
/// It subscribes to `wormhole/v1/machines/#` (QoS 0: mosquitto does not queue it as it does
/// QoS 1, so a fleet beyond its `max_queued_messages` arrives whole) and collects retained messages for a settle time:
/// at least ``settleSeconds`` after the broker accepts the connection, longer while retained
/// messages keep arriving (until ``quietSeconds`` pass without one), at most
/// ``longestSeconds``. Live messages (traffic) are ignored. Everything from the broker is
/// hostile: a topic that is not a bridge's, or a mailbox payload that is not a JSON object of at
/// most ``payloadByteLimit`` bytes, is counted as dropped, never printed.
enum FleetDump {
  static let settleSeconds = 1.0
  static let quietSeconds = 0.5
  static let longestSeconds = 10.0
  static let connectSeconds = 5.0
  static let payloadByteLimit = FleetState.payloadByteLimit

  /// What was collected: the fleet (its reducer, shared with the dashboard, keeps each
  /// payload as published) and when the last retained message came.
  struct Fleet {
    var state = FleetState(historyDepth: 0, keepsPayloads: true)
    var connected = false
    var lastMessage = ContinuousClock.now
    /// The retained messages received, not yet filed: the client's thread only keeps them, so
    /// it reads the socket as fast as the broker writes (mosquitto drops what waits for a slow
    /// reader beyond its `max_queued_messages`); ``file()`` checks them.
    var received: [FleetInput] = []
    var dropped: Int { state.dropped }

    /// Files what was received into the fleet's reducer, which drops and counts what is not a
    /// bridge's.
    mutating func file() {
      state.apply(received, at: 0)
      received = []
    }
  }

  static func run(broker address: String, json: Bool) throws(CommandError) -> ExitCode {
    let broker: BrokerAddress
    do throws(MQTTError) {
      broker = try BrokerAddress(parsing: address)
      try MQTTClient.load()
    } catch {
      throw .usage(error.description)
    }
    let fleet = Mutex(Fleet())
    let wake = DispatchSemaphore(value: 0)
    let subscription = Mutex<(@Sendable () -> Void)?>(nil)
    let client: MQTTClient
    do throws(MQTTError) {
      client = try MQTTClient(
        clientIdentifier: "wormhole-dump-\(getpid())", cleanSession: true,
        maximumPayloadBytes: payloadByteLimit
      ) { event in
        switch event {
        case .connected:
          subscription.withLock { $0 }?()
          fleet.withLock {
            $0.connected = true
            $0.lastMessage = .now
          }
          wake.signal()
        case .received(let message):
          fleet.withLock { collect(message, into: &$0) }
        case .dropped(let reason):
          fleet.withLock { $0.received.append(.refused(reason)) }
        case .refused(let reason):
          diagnose("the broker refused the connection: \(reason)")
        case .disconnected, .published:
          break
        }
      }
    } catch {
      throw .failure(error.description)
    }
    subscription.withLock {
      $0 = { [client] in
        // QoS 0: a QoS 1 subscriber is handed at most mosquitto's max_queued_messages (1000 by
        // default) and 20 in flight of the retained state; the rest is dropped without a word.
        do throws(MQTTError) { try client.subscribe(BridgeTopics.everything, quality: .atMostOnce) } catch {
          diagnose(error.description)
        }
      }
    }
    defer { subscription.withLock { $0 = nil } }
    do throws(MQTTError) { try client.connect(to: broker) } catch { throw .failure(error.description) }
    guard wake.wait(timeout: .now() + connectSeconds) == .success else {
      client.disconnect()
      throw .failure("\(broker) accepted no connection within \(Int(connectSeconds)) seconds")
    }
    let start = ContinuousClock.now
    while true {
      let last = fleet.withLock { $0.lastMessage }
      let now = ContinuousClock.now
      if now - start >= .seconds(longestSeconds) { break }
      if now - start >= .seconds(settleSeconds), now - last >= .seconds(quietSeconds) { break }
      usleep(50_000)
    }
    client.disconnect()
    var collected = fleet.withLock { $0 }
    collected.file()
    if json {
      emit(jsonText(collected))
    } else {
      emitRaw(text(collected))
    }
    // A broker drops what exceeds its queue without a word: only the bridges' counts tell.
    for shortfall in collected.state.shortfalls { diagnose(shortfall) }
    if collected.dropped > 0 {
      diagnose(
        "\(collected.dropped) message\(collected.dropped == 1 ? "" : "s") from the broker dropped (not a bridge's)"
      )
    }
    return .success
  }

  /// Files one retained message into the fleet (live ones are left out: traffic is not
  /// state); the fleet's reducer drops and counts what is not a bridge's.
  static func collect(_ message: MQTTMessage, into fleet: inout Fleet) {
    guard message.isRetained else { return }
    fleet.lastMessage = .now
    fleet.received.append(FleetInput(topic: message.topic, payload: message.payload, isRetained: true))
  }

  /// The fleet as text: one block per machine (its name and presence, and how many of the
  /// mailboxes its bridge says it publishes did not arrive), then its directories and mailboxes
  /// with dump's columns.
  static func text(_ fleet: Fleet) -> String {
    var out = ""
    for name in fleet.state.machineNames {
      guard let machine = fleet.state.machines[name] else { continue }
      let count = machine.payloads.values.reduce(0) { $0 + $1.count }
      out +=
        "machine \(DisplayText.field(name)) (\(presenceWord(machine.presence) ?? "presence unknown"), \(count) \(count == 1 ? "mailbox" : "mailboxes"))\n"
      if let missing = machine.missingMailboxCount, let claimed = machine.claimedMailboxCount {
        out +=
          "  \(missing) of the \(claimed) mailboxes its bridge publishes did not arrive: the broker may have dropped them (max_queued_messages)\n"
      }
      for directory in machine.payloads.keys.sorted() {
        let mailboxes = machine.payloads[directory] ?? [:]
        guard !mailboxes.isEmpty else { continue }
        out +=
          "  \(directory.displayField) (\(mailboxes.count) \(mailboxes.count == 1 ? "mailbox" : "mailboxes"))\n"
        for identifier in mailboxes.keys.sorted() {
          out += "    " + row(identifier, payload: mailboxes[identifier] ?? "") + "\n"
        }
      }
    }
    if fleet.state.machineNames.isEmpty { out += "no bridged machines\n" }
    return out
  }

  /// One mailbox's columns, as dump prints a local one.
  static func row(_ identifier: FileName, payload: String) -> String {
    guard case .dictionary(let top)? = try? JSONParser(maximumDepth: 16).parse(payload),
      case .dictionary(let mailbox)? = member("mailbox", in: top)
    else { return identifier.displayField + " unreadable payload" }
    func text(_ key: String) -> String? {
      if case .string(let value)? = member(key, in: mailbox) { return value }
      return nil
    }
    // A count no bridge writes (negative, another type) is not printed: 0, as the model takes it.
    func number(_ key: String) -> Int64? {
      switch member(key, in: mailbox) {
      case .integer(let value)? where value >= 0: value
      case .unsignedInteger(let value)?: Int64(clamping: value)
      default: nil
      }
    }
    var columns = [identifier.displayField]
    let versions = "v\(number("versions") ?? 0)"
    let change = TailVerb.field(text("last_change") ?? "-")
    if let error = text("error") {
      columns += ["unreadable", versions, change, "error: \(DisplayText.escaped(error))"]
    } else {
      columns += [
        "\(number("bytes") ?? 0)B", versions, change, TailVerb.field(text("last_writer") ?? "-"),
        TerminalWidth.truncated(DisplayText.escaped(text("summary") ?? ""), toColumns: 60),
      ]
      if let reason = text("decode_error") { columns.append("decode error: \(DisplayText.escaped(reason))") }
    }
    return columns.joined(separator: " ")
  }

  /// The presence as the bridge published it, `nil` when none was seen.
  static func presenceWord(_ presence: FleetPresence) -> String? {
    presence == .unknown ? nil : presence.rawValue
  }

  static func member(_ key: String, in entries: [ArchivedEntry]) -> ArchivedValue? {
    entries.first { $0.key == .string(key) }?.value
  }

  /// The fleet as one JSON document:
  /// `{"machines":[{"name","presence","mailboxes_published","directories":[{"path","path_bytes","mailboxes":[{"identifier","identifier_bytes","payload"}]}]}],"dropped"}`,
  /// `payload` the bridge's mailbox payload as published (a JSON object), `presence` `null`
  /// when no presence was retained, `mailboxes_published` the count the bridge's info gives
  /// (`null` when it gives none; more than the mailboxes listed: the broker dropped some).
  static func jsonText(_ fleet: Fleet) -> String {
    var machines: [String] = []
    for name in fleet.state.machineNames {
      guard let machine = fleet.state.machines[name] else { continue }
      var directories: [String] = []
      for directory in machine.payloads.keys.sorted() {
        let mailboxes = machine.payloads[directory] ?? [:]
        guard !mailboxes.isEmpty else { continue }
        let rows = mailboxes.keys.sorted().map { identifier in
          "{\"identifier\":\(JSONText.name(identifier)),\"identifier_bytes\":\(JSONText.nameBytes(identifier)),\"payload\":\(mailboxes[identifier] ?? "null")}"
        }
        directories.append(
          "{\"path\":\(JSONText.name(directory)),\"path_bytes\":\(JSONText.nameBytes(directory)),\"mailboxes\":[\(rows.joined(separator: ","))]}"
        )
      }
      machines.append(
        "{\"name\":\(JSONText.string(name)),\"presence\":\(JSONText.string(orNull: presenceWord(machine.presence))),\"mailboxes_published\":\(machine.claimedMailboxCount.map(String.init) ?? "null"),\"directories\":[\(directories.joined(separator: ","))]}"
      )
    }
    return "{\"machines\":[\(machines.joined(separator: ","))],\"dropped\":\(fleet.dropped)}"
  }
}
