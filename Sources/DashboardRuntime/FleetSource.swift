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
/// It subscribes to `wormhole/v1/machines/#` at QoS 0 at each connection (the broker sends the
/// retained state at once, so a late dashboard sees it, beyond mosquitto's QoS 1 queue limit)
/// and publishes nothing. The client reconnects by
/// itself with backoff; a first connection that fails is tried again every
/// ``retrySeconds``. Each connection after the first may meet a broker that lost its state
/// (restarted without persistence): it is a reload, between
/// ``FleetModel/FleetMessage/reloadStarted`` (before the subscription) and
/// ``FleetModel/FleetMessage/reloadFinished`` once the broker went quiet
/// (``reloadQuietMilliseconds`` without a message, at most ``reloadLimitMilliseconds``), so
/// the fleet forgets what nobody sent again. Nothing here checks the messages: the fleet's reducer does (they are
/// hostile), and the client refuses a payload above ``FleetModel/FleetState/payloadByteLimit``
/// before it is copied.
public final class FleetSource: DashboardMessageSource {
  /// How long messages are gathered into one batch after the first.
  public static let batchMilliseconds = 20
  /// How long to wait before trying a first connection again.
  public static let retrySeconds = 2.0
  /// How long without a message ends a reload: the broker has sent what it holds.
  public static let reloadQuietMilliseconds = 500
  /// The longest a reload lasts, however busy the broker.
  public static let reloadLimitMilliseconds = 10_000
  /// The most bytes of payloads that wait to be checked by default (see ``init(broker:clientIdentifier:clock:pendingByteLimit:)``).
  public static let pendingByteLimit = FleetPendingInputs.defaultByteLimit

  private let broker: BrokerAddress
  private let clock: any DashboardClock
  private let clientIdentifier: String
  private let queue = DispatchQueue(label: "wormhole.dashboard.fleet")
  private let state: Mutex<State>

  private struct State: SourcePosting {
    var post: (@Sendable (DashboardMessage) -> Void)?
    /// What arrived since the last batch, in order: a message from the broker is kept as it
    /// came (checked when the batch is made, off the client's thread, so that the client reads
    /// the socket as fast as the broker writes: mosquitto drops what waits for a slow reader
    /// beyond its `max_queued_messages`), a marker as it is; at most so many bytes of payloads
    /// (``FleetPendingInputs``), beyond which a message is dropped and counted.
    var pending: FleetPendingInputs
    var flushScheduled = false
    var client: MQTTClient?
    var started = false
    /// Whether a connection was made before (a later one is a reload).
    var hasConnected = false
    /// The reload under way: its number, when it started and when the last message came
    /// (monotonic nanoseconds).
    var reload: (generation: Int, started: UInt64, lastArrival: UInt64)?
    var reloads = 0
    /// Messages posted and not yet applied by the loop: no batch is taken while one waits.
    var window = FleetPostingWindow()
  }

  /// The fleet of `broker`; nothing connects until ``start(posting:)``. `clientIdentifier`
  /// names this dashboard to the broker (a clean session: it is forgotten when it leaves).
  /// At most `pendingByteLimit` bytes of payloads wait for a batch to be checked; a message
  /// beyond is dropped and counted ("the dashboard fell behind").
  public init(
    broker: BrokerAddress, clientIdentifier: String, clock: any DashboardClock = SystemClock(),
    pendingByteLimit: Int = FleetSource.pendingByteLimit
  ) {
    self.broker = broker
    self.clientIdentifier = clientIdentifier
    self.clock = clock
    state = Mutex(State(pending: FleetPendingInputs(byteLimit: pendingByteLimit)))
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
          // On the client's thread, before the subscription: the marker precedes what it sends.
          if let generation = self.beginReloadIfReconnected() {
            self.enqueue(marker: .reloadStarted, reload: generation)
          }
          if let client = subscribe.withLock({ $0 }) {
            do throws(MQTTError) {
              // QoS 0: mosquitto hands a QoS 1 subscriber at most 20 in flight and
              // max_queued_messages (1000 by default) queued, and drops the rest of a large
              // fleet's retained state without a word; QoS 0 it writes straight to the socket.
              // A live connection delivers in order; what a reconnection loses, the reload has.
              try client.subscribe(BridgeTopics.everything, quality: .atMostOnce)
            } catch {
              self.send(.fleetConnection("cannot subscribe: \(error.description)"))
              return
            }
          }
          self.send(.fleetConnection(nil))
        case .received(let message):
          self.enqueue(
            FleetInput(topic: message.topic, payload: message.payload, isRetained: message.isRetained),
            at: self.clock.now())
        case .dropped(let reason):
          self.enqueue(.refused(reason), at: self.clock.now())
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

  /// Starts a reload when a connection was made before; its number, or `nil` for the first.
  private func beginReloadIfReconnected() -> Int? {
    let now = DispatchTime.now().uptimeNanoseconds
    return state.withLock { state -> Int? in
      defer { state.hasConnected = true }
      guard state.hasConnected else { return nil }
      state.reloads += 1
      state.reload = (state.reloads, now, now)
      return state.reloads
    }
  }

  /// Ends reload `generation` once the broker has been quiet for ``reloadQuietMilliseconds``
  /// (or ``reloadLimitMilliseconds`` passed); checks again later otherwise.
  private func checkReload(_ generation: Int) {
    let now = DispatchTime.now().uptimeNanoseconds
    let quiet = UInt64(Self.reloadQuietMilliseconds) * 1_000_000
    let wait = state.withLock { state -> UInt64? in
      guard let reload = state.reload, reload.generation == generation else { return nil }
      let silent = now &- reload.lastArrival
      if silent >= quiet || now &- reload.started >= UInt64(Self.reloadLimitMilliseconds) * 1_000_000 {
        state.reload = nil
        return 0
      }
      return quiet - silent
    }
    guard let wait else { return }
    guard wait > 0 else {
      enqueue(marker: .reloadFinished)
      return
    }
    queue.asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) { [weak self] in
      self?.checkReload(generation)
    }
  }

  /// Queues `input`, received at `time`, for the next batch (which checks it: parsing, base64,
  /// on this source's queue, so the loop only files it).
  private func enqueue(_ input: FleetInput, at time: Int64) {
    enqueue { $0.append(input, at: time) }
  }

  /// Queues a marker; the reload marker `reload` also starts its quiet watch.
  private func enqueue(marker: FleetMessage, reload: Int? = nil) {
    enqueue(reload: reload) { $0.append(marker: marker) }
  }

  private func enqueue(reload: Int? = nil, _ add: (inout FleetPendingInputs) -> Void) {
    let now = DispatchTime.now().uptimeNanoseconds
    let schedule = state.withLock { state -> Bool in
      add(&state.pending)
      state.reload?.lastArrival = now
      defer { state.flushScheduled = true }
      return !state.flushScheduled
    }
    if let reload {
      queue.asyncAfter(deadline: .now() + .milliseconds(Self.reloadQuietMilliseconds)) { [weak self] in
        self?.checkReload(reload)
      }
    }
    guard schedule else { return }
    queue.asyncAfter(deadline: .now() + .milliseconds(Self.batchMilliseconds)) { [weak self] in self?.flush()
    }
  }

  public func loopApplied(fleetMessages count: Int) {
    state.withLock { $0.window.applied(count) }
  }

  /// Takes what waits and posts it checked; while the loop has not applied what was posted
  /// (all but ``FleetPostingWindow/slack``), it waits in ``FleetPendingInputs`` instead (bounded there, the
  /// excess dropped and counted), so checked messages never pile up in the loop's backlog.
  private func flush() {
    let taken = state.withLock {
      state -> (pending: [FleetPendingInputs.Entry], post: (@Sendable (DashboardMessage) -> Void)?)? in
      guard state.window.isOpen else { return nil }
      defer { state.flushScheduled = false }
      let pending = state.pending.take()
      state.window.posted(pending.count)
      return (pending, state.post)
    }
    guard let taken else {
      // Held back: try again a batch later (not once cancelled: nothing would reopen it).
      guard state.withLock({ $0.post != nil }) else { return }
      queue.asyncAfter(deadline: .now() + .milliseconds(Self.batchMilliseconds)) { [weak self] in
        self?.flush()
      }
      return
    }
    guard !taken.pending.isEmpty else { return }
    taken.post?(.fleet(taken.pending.map(\.message), at: clock.now()))
  }
}
