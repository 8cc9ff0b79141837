import ArchivedValues
import Dispatch
import FleetProtocol
import MQTTClient
import Synchronization
import WormholeVocabulary

/// Sends one remote pass, clear, clear-all or replay to a machine's bridge and awaits its reply: what the
/// `pass --broker` and `clear --broker` verbs (and the fleet dashboard) use.
///
/// Each ``perform(_:on:directory:identifier:archive:replayOf:transiting:)`` connects with a fresh
/// client identifier (clean session), subscribes to the machine's presence and bridge info and to
/// its own reply topic, and makes sure the broker has delivered the retained ones (it publishes an
/// empty marker to its reply topic and waits for it to come back), so an offline or read-only
/// bridge is reported at once, with the reason, instead of timing out. Then it publishes the
/// request at QoS 1 and waits for the reply bearing its id.
public struct RemoteWriteClient: Sendable {
  /// The broker the bridges publish on.
  public var broker: BrokerAddress
  /// How long to wait for the connection, and then for the reply, in seconds.
  public var timeout: Double

  /// The timeout unless told otherwise: 10 s.
  public static let defaultTimeout = 10.0
  /// The timeouts accepted (``timeoutProblem(_:)``): 0.1 s to an hour.
  public static let timeoutRange = 0.1...3600.0

  public init(broker: BrokerAddress, timeout: Double = RemoteWriteClient.defaultTimeout) {
    self.broker = broker
    self.timeout = timeout
  }

  /// Why `text` is not a timeout in seconds this client takes (a decimal number within
  /// ``timeoutRange``), or `nil` when it is one: the rule, for the `--remote-timeout` options.
  public static func timeoutProblem(_ text: String) -> String? {
    guard let seconds = Double(text), seconds.isFinite, timeoutRange.contains(seconds) else {
      return
        "\(DisplayText.field(text)) is not a number of seconds from \(timeoutRange.lowerBound) to \(Int(timeoutRange.upperBound))"
    }
    return nil
  }

  /// Asks `machine`'s bridge to apply `operation` to `identifier` in `directory` (a directory
  /// path as the mailbox topics name it; `nil` for the one directory the bridge's retained
  /// mailbox topics name; `identifier` `nil` exactly for a clear-all) and returns its reply:
  /// applied with the journal sequence number, or refused with the reason.
  public func perform(
    _ operation: RemoteRequest.Operation, on machine: String, directory: FileName?, identifier: FileName?,
    archive: [UInt8]? = nil, replayOf: UInt64? = nil, transiting: TransitingType? = nil
  ) throws(RemoteWriteError) -> RemoteReply {
    let nonce = String(UInt64.random(in: 0...UInt64.max), radix: 16)
    let clientIdentifier = "wormhole-remote-\(nonce)"
    let replyTopic = BridgeTopics.replies(client: clientIdentifier)
    let inbox = Inbox(machine: machine, replyTopic: replyTopic)
    let client: MQTTClient
    do throws(MQTTError) {
      client = try MQTTClient(clientIdentifier: clientIdentifier, cleanSession: true) { inbox.take($0) }
      try client.connect(to: broker)
    } catch {
      throw .broker(error.description)
    }
    defer { client.disconnect() }
    let seconds = min(max(timeout, Self.timeoutRange.lowerBound), Self.timeoutRange.upperBound)
    let deadline = DispatchTime.now() + .milliseconds(Int(seconds * 1000))
    if let refusal = inbox.wait(until: deadline, for: { $0.isConnected || $0.refusal != nil })?.refusal {
      throw .broker("the broker refused the connection: \(refusal)")
    }
    guard inbox.state.isConnected else {
      throw .broker("no connection to the broker \(broker) within \(timeout) s")
    }
    do throws(MQTTError) {
      try client.subscribe(BridgeTopics.presence(machine: machine), quality: .atLeastOnce)
      try client.subscribe(BridgeTopics.bridge(machine: machine), quality: .atLeastOnce)
      if directory == nil {
        try client.subscribe(BridgeTopics.mailboxes(machine: machine), quality: .atLeastOnce)
      }
      try client.subscribe(replyTopic, quality: .atLeastOnce)
      // The broker handles a connection's packets in order: once the marker comes back, every
      // retained message of the subscriptions above has been delivered.
      try client.publish([], to: replyTopic, quality: .atLeastOnce, retained: false)
    } catch {
      throw .broker(error.description)
    }
    guard let known = inbox.wait(until: deadline, for: { $0.markerSeen }) else {
      throw .broker(
        "the broker \(broker) did not hand back what it holds of machine \(DisplayText.field(machine)) within \(timeout) s"
      )
    }
    switch (known.presence, known.info) {
    case (nil, nil): throw .noBridge(machine: machine)
    case ("offline"?, _), (nil, _): throw .bridgeOffline(machine: machine)
    case (_, nil): throw .noBridgeInfo(machine: machine)
    case (_, let info?):
      if !info.allowsRemoteWrites {
        throw .readOnly(machine: machine, reason: info.reason ?? "remote writes are off")
      }
    }
    let target: FileName
    if let directory {
      target = directory
    } else {
      let published = known.directories.sorted()
      guard published.count == 1, let only = published.first else {
        throw .directoryNeeded(machine: machine, published: published)
      }
      target = only
    }
    let request = RemoteRequest(
      id: "r-\(nonce)", operation: operation, directory: target, identifier: identifier, archive: archive,
      replayOf: replayOf, transiting: transiting, replyTo: replyTopic)
    do throws(FleetProtocolError) { try request.validate() } catch { throw .invalidRequest(error) }
    inbox.expect(id: request.id)
    do throws(MQTTError) {
      try client.publish(
        request.payload, to: BridgeTopics.requests(machine: machine), quality: .atLeastOnce, retained: false)
    } catch {
      throw .broker(error.description)
    }
    // Under MQTT 5 a request the broker's ACL denies is refused at once, with the reason.
    let answered = inbox.wait(until: deadline, for: { $0.reply != nil || $0.refusal != nil })
    if let refusal = answered?.refusal, answered?.reply == nil {
      throw .broker("the broker refused the request: \(refusal)")
    }
    guard let reply = answered?.reply else {
      throw .timedOut(machine: machine, seconds: timeout)
    }
    return reply
  }
}

/// What the client's network thread has seen, and a wake-up for the waiting caller.
private final class Inbox: Sendable {
  struct State: Sendable {
    var isConnected = false
    var refusal: String?
    var presence: String?
    var info: BridgeInfo?
    var directories: Set<FileName> = []
    var markerSeen = false
    var expectedID: String?
    var reply: RemoteReply?
  }

  let machine: String
  let replyTopic: String
  private let current = Mutex(State())
  private let wake = DispatchSemaphore(value: 0)

  init(machine: String, replyTopic: String) {
    self.machine = machine
    self.replyTopic = replyTopic
  }

  var state: State { current.withLock { $0 } }

  /// Expects the reply `id`; a refusal from before (none is expected) no longer counts.
  func expect(id: String) {
    current.withLock {
      $0.expectedID = id
      $0.refusal = nil
    }
  }

  /// The state once `condition` holds, or `nil` at the deadline.
  func wait(until deadline: DispatchTime, for condition: (State) -> Bool) -> State? {
    while true {
      let now = state
      if condition(now) { return now }
      if wake.wait(timeout: deadline) == .timedOut {
        let last = state
        return condition(last) ? last : nil
      }
    }
  }

  func take(_ event: MQTTEvent) {
    current.withLock { state in
      switch event {
      case .connected: state.isConnected = true
      case .refused(let reason): state.refusal = reason
      case .received(let message): file(message, into: &state)
      case .disconnected, .dropped, .published: break
      }
    }
    wake.signal()
  }

  /// Everything from the broker is hostile: what does not decode is left out.
  private func file(_ message: MQTTMessage, into state: inout State) {
    if message.topic == replyTopic {
      guard !message.payload.isEmpty else {
        state.markerSeen = true
        return
      }
      guard let reply = try? RemoteReply(payload: message.payload), reply.id != nil,
        reply.id == state.expectedID
      else { return }
      state.reply = reply
      return
    }
    switch BridgeTopics.kind(of: message.topic) {
    case .presence(let owner)? where owner == machine:
      let word = String(decoding: message.payload, as: UTF8.self)
      state.presence = word == "online" || word == "offline" ? word : nil
    case .bridge(let owner)? where owner == machine:
      state.info = message.payload.isEmpty ? nil : try? BridgeInfo(payload: message.payload)
    case .mailbox(let owner, let directory, _)? where owner == machine && message.isRetained:
      if !message.payload.isEmpty { state.directories.insert(directory) }
    default: break
    }
  }
}
