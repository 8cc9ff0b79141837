import ArchivedValues
import DeviceRouting
import DeviceSession
import Dispatch
import Foundation
import MQTTClient
import Synchronization

/// The ``DeviceLink`` through an MQTT broker: the two devices of a pair may run on different
/// machines, each connected to the same broker (the layout is ``DeviceTopics``).
///
/// WatchConnectivity's semantics map onto MQTT's:
/// - **Reachability** is the counterpart's presence: a retained `online` that the device
///   publishes when it connects, and a retained `offline` it publishes when it stops, or that
///   the broker publishes for it (its Last Will) when its connection ends otherwise (killed,
///   network gone, or stopped: one and a half keep-alives after its last packet). The link is
///   reachable while it is connected and the counterpart is online *and live*: a device also
///   publishes `online` (not retained, QoS 0) every heartbeat (a quarter of the keep-alive by
///   default), and answers the first live
///   `online` it hears from a counterpart it did not hear from before with one of its own, so
///   a retained `online` alone (left by a device that died while the broker was down, when
///   no Will could be published) never makes it reachable, and a counterpart silent for three
///   heartbeats (stopped, or cut off) is unreachable until it is heard again.
/// - **Messages and replies** go out only while the counterpart is reachable (otherwise
///   ``send(_:)`` returns `false`, and the session fails with 7007), at QoS 1; the receiver
///   subscribes to them at QoS 0, so the broker never keeps one for a device that is away.
/// - **Contexts** are retained at QoS 1: the newest waits in the broker.
/// - **Transfers and acknowledgements** are QoS 1 into the receiver's persistent session (a
///   fixed client identifier per device, clean session off): what is sent while the receiver
///   is away (or dying) waits in the broker, in order, and arrives when it returns. QoS 1 may
///   deliver one twice; the session drops a transfer whose id it has stored (and acknowledges
///   it again), so the application sees each once.
///
/// Events come from the MQTT client's network thread, one at a time, in order.
public final class MQTTDeviceLink: DeviceLink {
  /// This device's topics.
  public let topics: DeviceTopics
  /// The broker the link connects to.
  public let broker: BrokerAddress
  private let codec: FrameCodec
  /// Seconds between the client's pings (see ``init(topics:broker:codec:keepAlive:heartbeat:)``).
  public let keepAlive: Int
  /// The time between two live `online`s of this device.
  public let heartbeat: Duration
  private let state = Mutex(LinkState())
  /// Runs the heartbeat timer; ``stop()`` cancels it there, so no heartbeat follows `offline`.
  private let timerQueue = DispatchQueue(label: "wormhole.mqtt-link.heartbeat")
  private let timer = Mutex<HeartbeatTimer?>(nil)
  /// Where pushes and deep links that arrive on this device's `push` topic are routed.
  private let routes = Mutex<DeviceRoutes?>(nil)
  /// Routes them off the client's network thread, one at a time, in order of arrival.
  private let routingQueue = DispatchQueue(label: "wormhole.mqtt-link.routing")
  /// This run's claim to the client identifier, published (retained) at each connection.
  private let claim = Claim()

  /// A run's claim to its device's client identifier: when it started (milliseconds since
  /// 1970) and a random token; the later claim (then the larger token) holds the identifier.
  /// Payload `TIME TOKEN`: decimal digits, a space, 16 lowercase hex digits.
  struct Claim: Comparable, Sendable {
    var milliseconds: UInt64
    var token: UInt64

    init() {
      var now = timespec()
      clock_gettime(CLOCK_REALTIME, &now)
      milliseconds = UInt64(max(0, now.tv_sec)) * 1000 + UInt64(max(0, now.tv_nsec) / 1_000_000)
      token = UInt64.random(in: 1...UInt64.max)
    }

    /// The claim `payload` says, or `nil` when it is not one.
    init?(_ payload: [UInt8]) {
      guard payload.count <= 40, let space = payload.firstIndex(of: UInt8(ascii: " ")) else { return nil }
      let time = payload[..<space]
      let token = payload[(space + 1)...]
      guard !time.isEmpty, time.count <= 20, time.allSatisfy({ (0x30...0x39).contains($0) }),
        token.count == 16,
        token.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
        let milliseconds = UInt64(String(decoding: time, as: UTF8.self)),
        let value = UInt64(String(decoding: token, as: UTF8.self), radix: 16)
      else { return nil }
      self.milliseconds = milliseconds
      self.token = value
    }

    var payload: [UInt8] {
      let hex = String(token, radix: 16)
      return Array("\(milliseconds) \(String(repeating: "0", count: 16 - hex.count))\(hex)".utf8)
    }

    static func < (left: Claim, right: Claim) -> Bool {
      (left.milliseconds, left.token) < (right.milliseconds, right.token)
    }
  }

  /// A dispatch source, whose methods are safe from any thread (Dispatch locks it itself).
  private struct HeartbeatTimer: @unchecked Sendable {
    let source: any DispatchSourceTimer
  }

  private struct LinkState {
    var handler: (@Sendable (LinkEvent) -> Void)?
    var client: MQTTClient?
    var isConnected = false
    /// The counterpart's presence says `online` (live or retained).
    var counterpartOnline = false
    /// The broker holds a presence of the counterpart (`online` or `offline`): it has connected
    /// to this broker, so its persistent session exists and takes transfers for it.
    var counterpartHasSession = false
    /// When the counterpart was last heard live (`nil`: not since this connection, or too long ago).
    var counterpartHeard: ContinuousClock.Instant?
    /// What was last reported to the session.
    var isReachable = false
    var isStopping = false
    /// Another device of this role connected with this one's client identifier (the broker
    /// closed this connection): this link no longer connects.
    var isTakenOver = false
    /// The connections this run made (the first ignores the claim it finds: a new run takes
    /// the identifier, as the broker gives it to the newest connection).
    var connections = 0
    /// The claim last heard on the claim topic since this connection began (`nil`: none yet,
    /// or the topic was cleared): the retained one, then this run's own. A clean stop clears
    /// the topic only while it is this run's.
    var lastClaimHeard: Claim?
    /// Why the broker refused this link's last connection attempt, `nil` once one is accepted.
    var connectionRefusal: String?
  }

  /// A counterpart not heard from for this many heartbeats is unreachable.
  public static let missedHeartbeats = 3

  /// Why `WORMHOLE_MQTT_KEEPALIVE` cannot be used (set, but not a whole number of seconds from
  /// 5 to 3600), or `nil` when it is unset or valid: what a verb refuses to start with, rather
  /// than run on another keep-alive than the one asked for.
  public static var keepAliveProblem: String? {
    guard let text = ProcessInfo.processInfo.environment["WORMHOLE_MQTT_KEEPALIVE"] else { return nil }
    if let seconds = Int(text), (5...3600).contains(seconds) { return nil }
    return "WORMHOLE_MQTT_KEEPALIVE is \(DisplayText.field(text)): the keep-alive is a whole number of "
      + "seconds from 5 to 3600 (libmosquitto refuses less than 5)"
  }

  /// The keep-alive when none is given: `WORMHOLE_MQTT_KEEPALIVE` (seconds, 5 to 3600) when it
  /// is set to one, else 10.
  public static var defaultKeepAlive: Int {
    guard let text = ProcessInfo.processInfo.environment["WORMHOLE_MQTT_KEEPALIVE"], let seconds = Int(text),
      (5...3600).contains(seconds)
    else { return 10 }
    return seconds
  }

  /// The payloads of the presence topic.
  public static let online: [UInt8] = Array("online".utf8)
  public static let offline: [UInt8] = Array("offline".utf8)

  /// A link for the device at `topics`' address through `broker`; nothing happens before
  /// ``start(_:)``.
  ///
  /// - Parameters:
  ///   - keepAlive: Seconds between the client's pings (at least 5, libmosquitto's minimum); a
  ///     device cut off from the broker without its connection closing (stopped with SIGSTOP,
  ///     its network gone) is announced offline by the broker one and a half times this after
  ///     its last packet.
  ///   - heartbeat: The time between two live `online`s (default: a quarter of the keep-alive);
  ///     a counterpart silent for ``missedHeartbeats`` of them is unreachable, so by default a
  ///     counterpart that stops (SIGSTOP, a frozen machine, a cable pulled) is unreachable
  ///     within one keep-alive of its last heartbeat, before the broker's Will (one and a half
  ///     keep-alives, and mosquitto checks them only every few seconds: 10 to 12 s for 5 s).
  ///     The silence is judged by this link's own heartbeat: both devices of a pair should have
  ///     the same (the same keep-alive).
  public init(
    topics: DeviceTopics, broker: BrokerAddress, codec: FrameCodec = FrameCodec(),
    keepAlive: Int = MQTTDeviceLink.defaultKeepAlive, heartbeat: Duration? = nil
  ) {
    self.topics = topics
    self.broker = broker
    self.codec = codec
    self.keepAlive = max(5, keepAlive)
    self.heartbeat = max(.milliseconds(50), heartbeat ?? .milliseconds(250 * self.keepAlive))
  }

  /// A link for `address` under the default prefix; throws when the pair's name cannot be a topic.
  public convenience init(
    address: DeviceAddress, broker: BrokerAddress, codec: FrameCodec = FrameCodec(),
    keepAlive: Int = MQTTDeviceLink.defaultKeepAlive, heartbeat: Duration? = nil
  ) throws(LinkError) {
    self.init(
      topics: try DeviceTopics(address: address), broker: broker, codec: codec, keepAlive: keepAlive,
      heartbeat: heartbeat)
  }

  public func start(_ handler: @escaping @Sendable (LinkEvent) -> Void) throws(LinkError) {
    let client: MQTTClient
    do {
      client = try MQTTClient(
        clientIdentifier: topics.clientIdentifier, cleanSession: false,
        will: MQTTMessage(
          topic: topics.topic(.presence), payload: Self.offline, quality: .atLeastOnce, isRetained: true),
        maximumPayloadBytes: codec.maximumFrameBytes + 4
      ) { [weak self] event in self?.handle(event) }
    } catch { throw LinkError(error.description) }
    state.withLock {
      $0.handler = handler
      $0.client = client
    }
    do { try client.connect(to: broker, keepAlive: keepAlive) } catch {
      state.withLock { $0.client = nil }
      throw LinkError(error.description)
    }
    startHeartbeat()
  }

  /// Routes the pushes and deep links published to this device's `push` topic (by
  /// ``BrokerRouting`` on any machine) with `routes`, answering each on its `routed` topic with
  /// the route taken. Without this, each is answered with a refusal.
  public func route(with routes: DeviceRoutes) {
    self.routes.withLock { $0 = routes }
  }

  /// Transfers wait in the receiver's persistent session and the newest context is retained:
  /// the session sends both at once, whether the counterpart is there or not.
  public var queuesWhileUnreachable: Bool { true }

  /// Whether another device of this role (the same pair, on another machine or home) connects
  /// to the broker with this device's client identifier, and its claim
  /// (``DeviceTopics/claim``, published at each connection) is the later. Such a link stops
  /// connecting, and says why once (``LinkEvent/denied(_:)``, taken over), instead of taking
  /// the session back a second later, and the other in turn: two devices of one role would
  /// otherwise close each other's connection forever (the broker gives an identifier to its
  /// newest connection), the counterpart's reachability flapping with them and its transfers
  /// split between them.
  /// (The broker does not say why it closed a connection so: mosquitto 2.0 sends no reason.)
  public var isTakenOver: Bool { state.withLock { $0.isTakenOver } }

  public func send(_ frame: DeviceFrame) -> Bool {
    let kind = DeviceTopics.topicKind(for: frame.kind)
    let client = state.withLock { state -> MQTTClient? in
      guard !state.isStopping, state.isConnected else { return nil }
      // Live messages only while the counterpart is there; the rest may wait in the broker, in
      // its persistent session, if it has one: a transfer published before the counterpart ever
      // connected would reach nobody, so it waits on this device's disk until it is reachable.
      if kind == .message && !state.isReachable { return nil }
      if kind == .transfer && !state.isReachable && !state.counterpartHasSession { return nil }
      return state.client
    }
    guard let client, let bytes = try? codec.encode(frame) else { return false }
    do {
      try client.publish(bytes, to: topics.topic(kind), quality: .atLeastOnce, retained: kind == .context)
      return true
    } catch {
      return false
    }
  }

  public func stop() {
    let (client, isConnected, holdsClaim) = state.withLock { state -> (MQTTClient?, Bool, Bool) in
      state.isStopping = true
      return (state.client, state.isConnected, !state.isTakenOver && state.lastClaimHeard == claim)
    }
    // On the timer's queue: once this returns, no heartbeat is being published or will be.
    timerQueue.sync {
      timer.withLock {
        $0?.source.cancel()
        $0 = nil
      }
    }
    guard let client else { return }
    // Announced by the device itself: the broker sends the Will only for a connection that ends
    // otherwise. Waited for (briefly), so that the counterpart hears it before the disconnect.
    if isConnected {
      _ = try? client.publish(
        Self.offline, to: topics.topic(.presence), quality: .atLeastOnce, retained: true, timeout: 2)
      // The retained claim goes with the run that made it (an empty retained message removes
      // it), unless another run's replaced it: a device that reconnects later finds no claim of
      // a run long stopped. A run killed leaves its claim, which the next run's first
      // connection ignores.
      if holdsClaim {
        _ = try? client.publish([], to: topics.claim, quality: .atLeastOnce, retained: true, timeout: 2)
      }
    }
    client.disconnect()
    state.withLock {
      $0.client = nil
      $0.isConnected = false
      $0.isReachable = false
    }
  }

  // MARK: The client's thread

  private func handle(_ event: MQTTEvent) {
    switch event {
    case .connected:
      // Taken over: libmosquitto may reconnect before the disconnection, which must not take
      // the session back.
      guard let client = state.withLock({ $0.isStopping || $0.isTakenOver ? nil : $0.client }) else { return }
      state.withLock {
        $0.isConnected = true
        $0.connections += 1
        $0.lastClaimHeard = nil
        $0.connectionRefusal = nil
      }
      let counterpart = topics.counterpart
      do {
        // Presence and messages at QoS 0: the broker keeps neither for this device while it is
        // away (the retained presence arrives on subscribing); the rest at QoS 1, queued.
        try client.subscribe(counterpart.topic(.presence), quality: .atMostOnce)
        try client.subscribe(counterpart.topic(.message), quality: .atMostOnce)
        for kind in [DeviceTopics.Kind.context, .transfer, .ack] {
          try client.subscribe(counterpart.topic(kind), quality: .atLeastOnce)
        }
        // Pushes and deep links reach a running device only, as on one machine.
        try client.subscribe(topics.topic(.push), quality: .atMostOnce)
        // Before this run's claim: the retained one says whether a newer device of this role
        // took the client identifier (``isTakenOver``).
        try client.subscribe(topics.claim, quality: .atMostOnce)
        try client.publish(claim.payload, to: topics.claim, quality: .atLeastOnce, retained: true)
        try client.publish(Self.online, to: topics.topic(.presence), quality: .atLeastOnce, retained: true)
      } catch {
        emit(.denied(LinkDenial(.refused, reason: "the broker connection failed at once: \(error)")))
        return
      }
    case .refused(let reason) where state.withLock({ $0.isConnected }):
      // Connected: the broker refused a publication of this device (MQTT 5: its ACL), not the
      // connection. Said at once, as the link's own failure (not the counterpart's frame); the
      // connection stays as it is.
      emit(.denied(LinkDenial(.refused, reason: reason)))
    case .refused(let reason):
      // Not connected: the broker refused the connection (bad credentials, a user it does not
      // authorize). Said once per reason (libmosquitto tries again at each reconnect delay),
      // instead of a device that waits in silence, unreachable.
      let isNew = state.withLock { state -> Bool in
        defer { state.connectionRefusal = reason }
        return state.connectionRefusal != reason
      }
      handle(.disconnected(reason: reason))
      if isNew { emit(.denied(LinkDenial(.refused, reason: "the broker refused the connection: \(reason)"))) }
    case .disconnected:
      state.withLock {
        $0.isConnected = false
        $0.counterpartOnline = false
        $0.counterpartHasSession = false
        $0.counterpartHeard = nil
      }
      updateReachability()
    case .received(let message):
      receive(message)
    case .dropped(let reason):
      // Too large for the link, or a topic that is not UTF-8: anyone may have published it.
      emit(.refusedInput(RefusedInput("a message from the broker", reason: reason)))
    case .published:
      break
    }
  }

  private func receive(_ message: MQTTMessage) {
    if message.topic == topics.topic(.push) {
      receiveRouteRequest(message.payload, on: message.topic)
      return
    }
    if message.topic == topics.claim {
      receiveClaim(message.payload)
      return
    }
    let counterpart = topics.counterpart
    guard let kind = counterpart.kind(of: message.topic) else { return }
    guard kind != .presence else {
      // An empty retained message clears the topic: nothing says the counterpart is there.
      guard message.payload == Self.online || message.payload == Self.offline || message.payload.isEmpty
      else {
        refuse("it is neither online nor offline", on: message.topic)
        return
      }
      let online = message.payload == Self.online
      // Retained: what the broker kept, maybe from a device long dead. Live: the device is there.
      let isLive = online && !message.isRetained
      let answer = state.withLock { state -> Bool in
        let heardBefore = state.counterpartOnline && state.counterpartHeard != nil
        state.counterpartOnline = online
        state.counterpartHasSession = !message.payload.isEmpty
        state.counterpartHeard = isLive ? .now : (online ? state.counterpartHeard : nil)
        return isLive && !heardBefore
      }
      // A counterpart heard live for the first time (it just connected, or came back) may have
      // only this device's retained online: a live one tells it this device is there too.
      // Here, not on a queue: a test process (or an app) whose Dispatch threads are all busy
      // would otherwise delay it, and the counterpart would not hear this device for as long.
      if answer { publishHeartbeat() }
      updateReachability()
      return
    }
    // Bytes that are no frame are nobody's in particular; a frame that decoded, on the
    // counterpart's topic, is said as the counterpart's even when it is out of place.
    let frame: DeviceFrame
    do throws(FrameError) { frame = try codec.decode(message.payload) } catch {
      refuse(error.description, on: message.topic)
      return
    }
    guard DeviceTopics.accepts(frame.kind, on: kind) else {
      emit(.refused(.malformed("a frame of kind \(frame.kind) on the \(kind.rawValue) topic")))
      return
    }
    // A live frame from a counterpart heard before says it is still there, as a heartbeat does.
    if !message.isRetained {
      state.withLock { if $0.counterpartHeard != nil { $0.counterpartHeard = .now } }
    }
    emit(.received(frame))
  }

  /// A claim on this device's `claim` topic. On this run's first connection, whatever it finds
  /// is a device of this role that ran before (or runs now, and lost the identifier to this
  /// one): ignored, and replaced by this run's. On a reconnection, another claim than this
  /// run's means another device connected with the identifier meanwhile: the later claim
  /// keeps it (both devices compare the same two claims, so exactly one yields).
  ///
  /// An empty one is a claim cleared by the clean stop of the run that made it: nothing claims
  /// the identifier.
  private func receiveClaim(_ payload: [UInt8]) {
    guard !payload.isEmpty else {
      state.withLock { $0.lastClaimHeard = nil }
      return
    }
    guard let other = Claim(payload) else {
      // This device's own topic, which the counterpart never writes.
      refuse("a claim that is not TIME TOKEN", on: topics.claim)
      return
    }
    state.withLock { $0.lastClaimHeard = other }
    guard other > claim else { return }
    let client = state.withLock { state -> MQTTClient? in
      guard !state.isStopping, !state.isTakenOver, state.connections > 1 else { return nil }
      state.isTakenOver = true
      state.isConnected = false
      state.counterpartOnline = false
      state.counterpartHasSession = false
      state.counterpartHeard = nil
      return state.client
    }
    guard let client else { return }
    updateReachability()
    let address = topics.address
    emit(
      .denied(
        LinkDenial(
          .takenOver,
          reason: "another \(address.role) of \(address.pair.text) took its place on the broker (it connects "
            + "as \(topics.clientIdentifier) too, and each connection closes the other's): this "
            + "\(address.role) no longer connects; run one \(address.role) of a pair at a time, then start "
            + "this one again")))
    // Not on the client's own thread, which disconnect() waits for.
    DispatchQueue.global().async { client.disconnect() }
  }

  /// The longest request identifier taken on the `push` topic (``BrokerRouting`` makes 32 hex digits).
  static let maximumRequestIdentifierBytes = 64

  /// A push or a deep link from the `push` topic, which anyone on the broker may publish to:
  /// a frame of one of those kinds, addressed as the local control socket's are (the device's
  /// own role), with a request identifier; anything else is refused (reported as of unknown
  /// sender, not answered).
  private func receiveRouteRequest(_ payload: [UInt8], on topic: String) {
    let frame: DeviceFrame
    do throws(FrameError) { frame = try codec.decode(payload) } catch {
      refuse(error.description, on: topic)
      return
    }
    guard DeviceTopics.accepts(frame.kind, on: .push), frame.sender == topics.address.role else {
      refuse("a frame of kind \(frame.kind) from the \(frame.sender) on the push topic", on: topic)
      return
    }
    let identifier = frame.identifier.utf8
    guard !identifier.isEmpty, identifier.count <= Self.maximumRequestIdentifierBytes,
      identifier.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
    else {
      refuse("a push request whose identifier is not 1 to 64 printable ASCII bytes", on: topic)
      return
    }
    routingQueue.async { [weak self] in
      guard let self else { return }
      var answer = self.routed(frame)
      answer.identifier = frame.identifier
      guard let client = self.state.withLock({ $0.isStopping ? nil : $0.client }),
        let bytes = try? self.codec.encode(answer)
      else { return }
      _ = try? client.publish(bytes, to: self.topics.topic(.routed), quality: .atLeastOnce, retained: false)
    }
  }

  /// The answer to a push or a deep link: the routed delivery, or the reason it was refused
  /// (as the control socket answers: ``DeviceControlServer``).
  private func routed(_ frame: DeviceFrame) -> DeviceFrame {
    let role = topics.address.role
    func refusal(_ reason: String) -> DeviceFrame {
      ControlAnswer.failed(.refusedFrame(reason)).frame(sender: role)
    }
    guard let routes = routes.withLock({ $0 }) else {
      return refusal("this device takes no pushes or deep links")
    }
    if frame.kind == .push {
      do throws(PushPayloadError) {
        return routes.deliver(try PushNotification(json: frame.payload)).routed.frame(sender: role)
      } catch { return refusal(error.description) }
    }
    guard frame.payload.count <= DeepLink.maximumWireBytes,
      let text = String(validating: frame.payload, as: UTF8.self)
    else { return refusal("the URL is not text of at most \(DeepLink.maximumWireBytes) bytes") }
    do throws(DeepLinkError) {
      return routes.deliver(try DeepLink(text)).routed.frame(sender: role)
    } catch { return refusal(error.description) }
  }

  /// Publishes a live `online` every heartbeat, and finds a counterpart that has gone silent.
  private func startHeartbeat() {
    let source = DispatchSource.makeTimerSource(queue: timerQueue)
    let interval = DispatchTimeInterval.nanoseconds(
      Int(heartbeat.components.seconds) * 1_000_000_000
        + Int(heartbeat.components.attoseconds / 1_000_000_000))
    source.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(10))
    source.setEventHandler { [weak self] in self?.beat() }
    let made = HeartbeatTimer(source: source)
    timer.withLock { $0 = made }
    source.resume()
  }

  private func beat() {
    let silence = heartbeat * Self.missedHeartbeats
    let wentSilent = state.withLock { state -> Bool in
      guard let heard = state.counterpartHeard, ContinuousClock.now - heard > silence else { return false }
      state.counterpartHeard = nil
      return true
    }
    publishHeartbeat()
    if wentSilent { updateReachability() }
  }

  /// A live (not retained) `online` at QoS 0, when connected.
  ///
  /// Published while the state is locked (libmosquitto's publish only queues the message):
  /// ``stop()`` sets `isStopping` under the same lock, so no `online` follows its `offline`.
  private func publishHeartbeat() {
    let topic = topics.topic(.presence)
    state.withLock { state in
      guard state.isConnected, !state.isStopping, let client = state.client else { return }
      _ = try? client.publish(Self.online, to: topic, quality: .atMostOnce, retained: false)
    }
  }

  private func updateReachability() {
    let change = state.withLock { state -> Bool? in
      let reachable =
        state.isConnected && state.counterpartOnline && state.counterpartHeard != nil && !state.isStopping
      guard reachable != state.isReachable else { return nil }
      state.isReachable = reachable
      return reachable
    }
    if let change { emit(.reachabilityChanged(change)) }
  }

  /// Reports a message on `topic` that was refused for `reason`: anyone who can publish on the
  /// topic may have sent it (``LinkEvent/refusedInput(_:)``), so it is not said as the
  /// counterpart's.
  private func refuse(_ reason: String, on topic: String) {
    emit(.refusedInput(RefusedInput("a message on \(DisplayText.field(topic))", reason: reason)))
  }

  private func emit(_ event: LinkEvent) {
    guard let handler = state.withLock({ $0.isStopping ? nil : $0.handler }) else { return }
    handler(event)
  }
}
