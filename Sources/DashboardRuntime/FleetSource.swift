import Dashboard
import Dispatch
import FleetModel
import FleetProtocol
import MQTTClient
import Synchronization

/// The fleet's messages from a broker (`--broker URL`), posted as
/// ``Dashboard/DashboardMessage/fleet(_:at:)`` in batches: everything that arrived within
/// ``batchMilliseconds`` of the first goes in one message, so thousands of retained messages
/// at start (or a flood of traffic) cost the loop a few reductions, not one each. The
/// connection's state is posted as ``Dashboard/DashboardMessage/fleetConnection(_:)``.
///
/// It subscribes to `wormhole/v1/machines/#` at each connection (the broker sends the retained
/// state at once, so a late dashboard sees it) and publishes nothing. The client reconnects by
/// itself with backoff; a first connection that fails is tried again every
/// ``retrySeconds``. Nothing here checks the messages: the fleet's reducer does (they are
/// hostile), and the client refuses a payload above ``FleetModel/FleetState/payloadByteLimit``
/// before it is copied.
public final class FleetSource: DashboardMessageSource {
  /// How long messages are gathered into one batch after the first.
  public static let batchMilliseconds = 20
  /// How long to wait before trying a first connection again.
  public static let retrySeconds = 2.0

  private let broker: BrokerAddress
  private let clock: any DashboardClock
  private let clientIdentifier: String
  private let queue = DispatchQueue(label: "wormhole.dashboard.fleet")
  private let state = Mutex(State())

  private struct State: SourcePosting {
    var post: (@Sendable (DashboardMessage) -> Void)?
    var pending: [FleetMessage] = []
    var flushScheduled = false
    var client: MQTTClient?
    var started = false
  }

  /// The fleet of `broker`; nothing connects until ``start(posting:)``. `clientIdentifier`
  /// names this dashboard to the broker (a clean session: it is forgotten when it leaves).
  public init(broker: BrokerAddress, clientIdentifier: String, clock: any DashboardClock = SystemClock()) {
    self.broker = broker
    self.clientIdentifier = clientIdentifier
    self.clock = clock
  }

  public func start(posting post: @escaping @Sendable (DashboardMessage) -> Void) {
    guard state.startPosting(post) else { return }
    queue.async { [weak self] in self?.connect() }
  }

  public func cancel() {
    let client = state.withLock { state -> MQTTClient? in
      state.post = nil
      defer { state.client = nil }
      return state.client
    }
    client?.disconnect()
    queue.sync {}
  }

  private func connect() {
    guard state.withLock({ $0.post != nil }) else { return }
    do throws(MQTTError) {
      let subscribe = Mutex<MQTTClient?>(nil)
      let client = try MQTTClient(
        clientIdentifier: clientIdentifier, cleanSession: true,
        maximumPayloadBytes: FleetState.payloadByteLimit
      ) { [weak self] event in
        guard let self else { return }
        switch event {
        case .connected:
          if let client = subscribe.withLock({ $0 }) {
            do throws(MQTTError) {
              try client.subscribe(BridgeTopics.everything, quality: .atLeastOnce)
            } catch {
              self.send(.fleetConnection("cannot subscribe: \(error.description)"))
              return
            }
          }
          self.send(.fleetConnection(nil))
        case .received(let message):
          self.enqueue(
            FleetInput(topic: message.topic, payload: message.payload, isRetained: message.isRetained))
        case .dropped(let reason):
          self.enqueue(.refused(reason))
        case .refused(let reason):
          self.send(.fleetConnection("the broker refused the connection: \(reason)"))
        case .disconnected(let reason):
          self.send(.fleetConnection("disconnected (\(reason)); reconnecting"))
        case .published:
          break
        }
      }
      subscribe.withLock { $0 = client }
      state.withLock { $0.client = client }
      try client.connect(to: broker)
    } catch {
      state.withLock { $0.client = nil }
      send(.fleetConnection("cannot connect to \(broker): \(error.description); trying again"))
      queue.asyncAfter(deadline: .now() + Self.retrySeconds) { [weak self] in self?.connect() }
    }
  }

  private func send(_ message: DashboardMessage) {
    state.withLock { $0.post }?(message)
  }

  /// Checks `input` here, on the client's thread (parsing, base64), so the loop only files it.
  private func enqueue(_ input: FleetInput) {
    let message = FleetMessage(input, at: clock.now())
    let schedule = state.withLock { state -> Bool in
      state.pending.append(message)
      defer { state.flushScheduled = true }
      return !state.flushScheduled
    }
    guard schedule else { return }
    queue.asyncAfter(deadline: .now() + .milliseconds(Self.batchMilliseconds)) { [weak self] in self?.flush()
    }
  }

  private func flush() {
    let (batch, post) = state.withLock { state -> ([FleetMessage], (@Sendable (DashboardMessage) -> Void)?) in
      defer {
        state.pending = []
        state.flushScheduled = false
      }
      return (state.pending, state.post)
    }
    guard !batch.isEmpty else { return }
    post?(.fleet(batch, at: clock.now()))
  }
}
