import DeviceSession
import MQTTClient
import Synchronization

/// The ``DeviceLink`` through an MQTT broker: the two devices of a pair may run on different
/// machines, each connected to the same broker (the layout is ``DeviceTopics``).
///
/// WatchConnectivity's semantics map onto MQTT's:
/// - **Reachability** is the counterpart's presence: a retained `online` that the device
///   publishes when it connects, and a retained `offline` it publishes when it stops, or that
///   the broker publishes for it (its Last Will) when its connection ends otherwise (killed,
///   network gone). The link is reachable while it is connected and the counterpart is online.
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
  private let keepAlive: Int
  private let state = Mutex(LinkState())

  private struct LinkState {
    var handler: (@Sendable (LinkEvent) -> Void)?
    var client: MQTTClient?
    var isConnected = false
    var counterpartOnline = false
    /// What was last reported to the session.
    var isReachable = false
    var isStopping = false
  }

  /// The payloads of the presence topic.
  public static let online: [UInt8] = Array("online".utf8)
  public static let offline: [UInt8] = Array("offline".utf8)

  /// A link for the device at `topics`' address through `broker`; nothing happens before
  /// ``start(_:)``.
  ///
  /// - Parameter keepAlive: Seconds between the client's pings; a device cut off from the
  ///   broker without its connection closing is announced offline after one and a half times this.
  public init(
    topics: DeviceTopics, broker: BrokerAddress, codec: FrameCodec = FrameCodec(), keepAlive: Int = 10
  ) {
    self.topics = topics
    self.broker = broker
    self.codec = codec
    self.keepAlive = keepAlive
  }

  /// A link for `address` under the default prefix; throws when the pair's name cannot be a topic.
  public convenience init(
    address: DeviceAddress, broker: BrokerAddress, codec: FrameCodec = FrameCodec(), keepAlive: Int = 10
  ) throws(LinkError) {
    self.init(topics: try DeviceTopics(address: address), broker: broker, codec: codec, keepAlive: keepAlive)
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
  }

  /// Transfers wait in the receiver's persistent session and the newest context is retained:
  /// the session sends both at once, whether the counterpart is there or not.
  public var queuesWhileUnreachable: Bool { true }

  public func send(_ frame: DeviceFrame) -> Bool {
    let kind = DeviceTopics.topicKind(for: frame.kind)
    let client = state.withLock { state -> MQTTClient? in
      guard !state.isStopping, state.isConnected else { return nil }
      // Live messages only while the counterpart is there; the rest may wait in the broker.
      if kind == .message && !state.isReachable { return nil }
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
    let (client, isConnected) = state.withLock { state -> (MQTTClient?, Bool) in
      state.isStopping = true
      return (state.client, state.isConnected)
    }
    guard let client else { return }
    // Announced by the device itself: the broker sends the Will only for a connection that ends
    // otherwise. Waited for (briefly), so that the counterpart hears it before the disconnect.
    if isConnected {
      _ = try? client.publish(
        Self.offline, to: topics.topic(.presence), quality: .atLeastOnce, retained: true, timeout: 2)
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
      guard let client = state.withLock({ $0.isStopping ? nil : $0.client }) else { return }
      state.withLock { $0.isConnected = true }
      let counterpart = topics.counterpart
      do {
        // Presence and messages at QoS 0: the broker keeps neither for this device while it is
        // away (the retained presence arrives on subscribing); the rest at QoS 1, queued.
        try client.subscribe(counterpart.topic(.presence), quality: .atMostOnce)
        try client.subscribe(counterpart.topic(.message), quality: .atMostOnce)
        for kind in [DeviceTopics.Kind.context, .transfer, .ack] {
          try client.subscribe(counterpart.topic(kind), quality: .atLeastOnce)
        }
        try client.publish(Self.online, to: topics.topic(.presence), quality: .atLeastOnce, retained: true)
      } catch {
        emit(.refused(.malformed("the broker connection failed at once: \(error)")))
        return
      }
    case .disconnected, .refused:
      state.withLock {
        $0.isConnected = false
        $0.counterpartOnline = false
      }
      updateReachability()
    case .received(let message):
      receive(message)
    case .dropped(let reason):
      emit(.refused(.malformed(reason)))
    case .published:
      break
    }
  }

  private func receive(_ message: MQTTMessage) {
    let counterpart = topics.counterpart
    guard let kind = counterpart.kind(of: message.topic) else { return }
    guard kind != .presence else {
      // An empty retained message clears the topic: nothing says the counterpart is there.
      guard message.payload == Self.online || message.payload == Self.offline || message.payload.isEmpty
      else {
        emit(.refused(.malformed("the \(counterpart.address.role)'s presence is neither online nor offline")))
        return
      }
      state.withLock { $0.counterpartOnline = message.payload == Self.online }
      updateReachability()
      return
    }
    let frame: DeviceFrame
    do throws(FrameError) { frame = try codec.decode(message.payload) } catch {
      emit(.refused(error))
      return
    }
    guard DeviceTopics.accepts(frame.kind, on: kind) else {
      emit(.refused(.malformed("a frame of kind \(frame.kind) on the \(kind.rawValue) topic")))
      return
    }
    emit(.received(frame))
  }

  private func updateReachability() {
    let change = state.withLock { state -> Bool? in
      let reachable = state.isConnected && state.counterpartOnline && !state.isStopping
      guard reachable != state.isReachable else { return nil }
      state.isReachable = reachable
      return reachable
    }
    if let change { emit(.reachabilityChanged(change)) }
  }

  private func emit(_ event: LinkEvent) {
    guard let handler = state.withLock({ $0.isStopping ? nil : $0.handler }) else { return }
    handler(event)
  }
}
