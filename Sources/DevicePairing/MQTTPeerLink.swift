import ArchivedValues
import DeviceSession
import Dispatch
import Glibc
import MQTTClient
import PeerSession
import Synchronization

/// The ``PeerLink`` through an MQTT broker: peers of one service type on any machines that
/// reach the same broker (the layout is ``PeerTopics``).
///
/// - **Presence and discovery**: each peer keeps a retained presence, its advertisement frame
///   while it advertises (else `online`), and an empty Last Will on it, so the broker removes it
///   and tells every peer when the peer dies (SIGKILL included); a peer that stops publishes the
///   empty message itself. While connected it also publishes its presence live (not retained,
///   QoS 0) every ``heartbeat``, and at once when another peer connects (that peer's probe). A
///   browser counts an advertiser as found only once it heard it *live*: a retained
///   advertisement alone (left by a peer that died while the broker was down, when no Will could
///   be published) is never found. A peer silent for ``missedHeartbeats`` heartbeats (stopped
///   with SIGSTOP, frozen, cut off) is withdrawn, and hung up, within one keep-alive.
/// - **Frames** go to the receiver's inbox topic for this sender, at QoS 1, in order (unreliable
///   data at QoS 0: no retransmission); `send` refuses a peer not heard live. Under MQTT 5 each
///   peer's connection keeps a persistent session (``usesPersistentSession``), expiring
///   ``sessionExpiry(outageLimit:keepAlive:)`` after the connection ends: the broker queues the
///   frames for a peer that is away, and a persistent broker keeps them across a restart; QoS 1's
///   second copies are dropped by frame key.
/// - **Outages**: when this link loses the broker, no peer is taken for gone for its silence
///   until ``outageLimit`` has passed since; a peer heard live again by then goes on as before
///   (its session with this one too), one that is not is gone then, on both sides of a session
///   (both lost the broker). A contact taken for gone for its silence is sent a `leave`, and a
///   peer that hears its own presence emptied (its Will, someone else's) hangs its contacts up,
///   so that a peer frozen or cut off alone ends the sessions the others ended with it.
/// - **Hostile input**: anything on the broker may publish on these topics. Topic levels must be
///   ids, presence payloads empty, `online` or one advertisement frame of at most
///   ``LocalPeerLink/advertisementLimit`` bytes for this service whose id is the topic's, inbox
///   payloads exactly one frame within the codec's limit (larger ones are dropped by the client
///   before they are read), never retained. Each refusal is counted (``refusedCount``) and, when
///   the topic names a peer, reported to the engine as `refused`.
///
/// Events come from the MQTT client's network thread and the link's heartbeat thread, one at a
/// time (one lock), in order. Like ``LocalPeerLink``, the peer also writes its run lock and
/// identity file under `<home>/peers/<service>/`, so that the `peer` verbs and the dashboard find
/// it on this machine (no advertisement file or link socket: local peers do not see it).
public final class MQTTPeerLink: PeerEventWorkLink {
  /// The peer this link belongs to.
  public let local: PeerIdentity
  public let topics: PeerTopics
  public let broker: BrokerAddress
  /// The local peer folder: the run lock and identity file.
  public let directory: PeerDirectory
  /// Seconds between the client's pings.
  public let keepAlive: Int
  /// The time between two live presences of this peer.
  public let heartbeat: Duration
  /// The longest broker outage a session outlives (see ``init(local:service:home:broker:codec:keepAlive:heartbeat:outageLimit:prefix:)``).
  public let outageLimit: Duration
  private let codec: PeerFrameCodec
  private let presenceCodec = PeerFrameCodec(maximumFrameBytes: LocalPeerLink.advertisementLimit)
  private let state = Mutex(LinkState())
  /// Held while events are made and handed over: the network and heartbeat threads take turns.
  private let emitting = Mutex(())
  private let refusals = Mutex(Refusals())
  private let heartbeatWake = DispatchSemaphore(value: 0)
  private let heartbeatEnded = DispatchSemaphore(value: 0)
  private let workWake = DispatchSemaphore(value: 0)
  private let workEnded = DispatchSemaphore(value: 0)
  private let workPending = Atomic<Bool>(false)
  /// The work thread, as `pthread_self()` gives it (0 before it runs).
  private let workThread = Atomic<UInt>(0)

  /// A peer of the service this link knows of.
  private struct Remote {
    /// Its advertisement, as its presence says (retained or live).
    var advertisement: PeerAdvertisement?
    /// When it was last heard live.
    var heard: ContinuousClock.Instant?
    /// Whether it was heard live since this link last connected: before that, after a broker
    /// restart, it may not have subscribed to its inbox again, and frames to it would be lost.
    var heardSinceConnecting = false
    /// What the engine was told (`announced`).
    var announced: PeerAdvertisement?
    /// Until when its silence is put down to a broker outage (``outageLimit`` after this link
    /// lost the broker), not to the peer: `nil` once it is heard live again.
    var excusedUntil: ContinuousClock.Instant?
  }

  private struct LinkState {
    var handler: (@Sendable (PeerLinkEvent) -> Void)?
    var work: (@Sendable () -> Void)?
    var client: MQTTClient?
    var lock: RunLock?
    var isConnected = false
    var isStopping = false
    /// Whether the connection keeps a persistent session (MQTT 5): see ``usesPersistentSession``.
    var isPersistent = false
    var isBrowsing = false
    /// This peer's presence payload: its advertisement frame, or `online`.
    var presence = PeerTopics.online
    /// The presences this link published before the current one (the last few): their echoes
    /// may still come back from the broker after a change.
    var earlierPresences: [[UInt8]] = []
    var lastBeat: ContinuousClock.Instant?
    /// A probe asked for a live presence that has not gone out yet.
    var isBeatRequested = false
    var remotes: [UInt64: Remote] = [:]
    /// The peers frames went to or came from: their end is `hungUp`.
    var contacts: [UInt64: PeerIdentity] = [:]
    /// Contacts this link hung up for their silence and has not heard live since: each is sent
    /// a `leave` again when it is, in case it missed the first (it was cut off from the broker
    /// when this link gave up on it, and its session was gone); not once a new session forms
    /// (an invitation or an answer between the two), which the `leave` would end.
    var departed: Set<UInt64> = []
    /// The frames last received from each neighbour that are unique by construction (see
    /// ``FrameKey``): a second copy is QoS 1 redelivering it, after a reconnection.
    var received: [UInt64: RecentFrames] = [:]
    var threads = 0
  }

  /// What tells one frame of a kind that is never sent twice from another: reliable data (its
  /// sequence), invitations, answers and withdrawals (the invitation's id), and the resource
  /// frames (the resource's id and offset or bytes held). Not `leave`, `members` and
  /// `departures`, which a session may send again with the same bytes, nor unreliable data.
  struct FrameKey: Hashable {
    let kind: UInt8
    let flags: UInt8
    let source: UInt64
    let destination: UInt64
    let sequence: UInt64
    let value: UInt64

    init?(_ frame: PeerFrame) {
      switch frame.kind {
      case .data where !frame.flags.contains(.reliable): return nil
      case .leave, .members, .departures, .advertisement: return nil
      default: break
      }
      kind = frame.kind.rawValue
      flags = frame.flags.rawValue
      source = frame.source.id
      destination = frame.destination
      sequence = frame.sequence
      value = frame.value
    }
  }

  /// The last ``recentFrames`` keys of one neighbour, oldest first.
  struct RecentFrames {
    private var order: [FrameKey] = []
    private var keys: Set<FrameKey> = []
    private var next = 0

    /// Notes `key`; `false` when it was seen already.
    mutating func insert(_ key: FrameKey) -> Bool {
      guard keys.insert(key).inserted else { return false }
      if order.count < MQTTPeerLink.recentFrames {
        order.append(key)
      } else {
        keys.remove(order[next])
        order[next] = key
        next = (next + 1) % order.count
      }
      return true
    }

    /// Forgets the keys of frames made by `sources`; the others keep their order, oldest first
    /// (once the ring has wrapped, the oldest is at `next`).
    mutating func forget(sources: Set<UInt64>) {
      let oldestFirst = order[next...] + order[..<next]
      let kept = oldestFirst.filter { !sources.contains($0.source) }
      guard kept.count != order.count else { return }
      order = Array(kept)
      keys = Set(kept)
      next = 0
    }
  }

  /// Forgets, on `frame` from or to the neighbour `id`, what ended sessions make stale: the
  /// engine numbers reliable data afresh for a peer that joins again. A `leave` ends the
  /// session with the neighbour (all its keys go); `departures` from it end those of the peers
  /// they list, reached through it (their keys go). Not `members`: a join always comes after the
  /// end of the session before it (a leave, a hang-up), and a members frame QoS 1 delivers
  /// again after a reconnection must not make the copies that follow it look new.
  static func forget(after frame: PeerFrame, of id: UInt64, in received: inout [UInt64: RecentFrames]) {
    switch frame.kind {
    case .leave:
      received[id] = nil
    case .departures:
      guard let gone = try? PeerFrameCodec.decodeIdentities(frame.payload) else { return }
      received[id]?.forget(sources: Set(gone.map(\.id)))
    default:
      break
    }
  }

  /// How many frames of each neighbour are remembered to drop QoS 1's second copies.
  static let recentFrames = 1024

  private struct Refusals {
    var count = 0
    var last: String?
  }

  /// A peer not heard from for this many heartbeats is gone.
  public static let missedHeartbeats = 3
  /// The most peers of the service the link keeps track of (anyone on the broker can invent
  /// presences): a presence of one more is refused.
  public static let maximumRemotes = 4096
  /// The fewest milliseconds between two heartbeats a probe asks for.
  static let probeAnswerMilliseconds: Int64 = 20

  /// A link for `local` of `service` through `broker`, with its local files under `home`;
  /// nothing happens before ``start(_:)``.
  ///
  /// - Parameters:
  ///   - keepAlive: Seconds between the client's pings (at least 5).
  ///   - heartbeat: Between two live presences (default: a quarter of the keep-alive); a peer
  ///     silent for ``missedHeartbeats`` of them is gone. Peers of a service should share it.
  ///   - outageLimit: The longest broker outage a session outlives: while this link is cut off
  ///     from the broker, and after it reconnects, a peer's silence is put down to the outage
  ///     until this long after it began (default: ``defaultOutageLimit(environment:)``, 30 s).
  ///     Peers of a service should share it.
  public init(
    local: PeerIdentity, service: ServiceType, home: String, broker: BrokerAddress,
    codec: PeerFrameCodec = PeerFrameCodec(), keepAlive: Int = MQTTDeviceLink.defaultKeepAlive,
    heartbeat: Duration? = nil, outageLimit: Duration? = nil, prefix: String = DeviceTopics.defaultPrefix
  ) throws(LinkError) {
    if let outageLimit {
      self.outageLimit = max(.zero, outageLimit)
    } else {
      self.outageLimit = try Self.defaultOutageLimit()
    }
    self.local = local
    topics = try PeerTopics(service: service, prefix: prefix)
    self.broker = broker
    directory = PeerDirectory(home: home, service: service)
    self.codec = codec
    self.keepAlive = max(5, keepAlive)
    self.heartbeat = max(.milliseconds(50), heartbeat ?? .milliseconds(250 * self.keepAlive))
  }

  /// The environment variable that sets the outage limit of a link made without one (seconds).
  public static let outageVariable = "WORMHOLE_MQTT_PEER_OUTAGE"
  /// The outage limit when neither the caller nor the environment gives one.
  public static let standardOutageLimit = Duration.seconds(30)
  /// The most seconds ``outageVariable`` may say (a day).
  static let outageSecondsLimit = 86_400

  /// ``outageVariable``'s limit (whole seconds, 0 to 86400), else ``standardOutageLimit``;
  /// throws with what to set when it holds anything else.
  public static func defaultOutageLimit(
    environment lookup: (String) -> String? = MQTTConnectionOptions.processEnvironment
  ) throws(LinkError) -> Duration {
    guard let text = lookup(outageVariable), !text.isEmpty else { return standardOutageLimit }
    guard let seconds = Int(text), (0...outageSecondsLimit).contains(seconds) else {
      throw LinkError(
        "\(outageVariable) is \(DisplayText.field(text)): the longest broker outage a peer session "
          + "outlives is a whole number of seconds from 0 to \(outageSecondsLimit)")
    }
    return .seconds(seconds)
  }

  /// Whether the link is connected to the broker now (it reconnects by itself after a loss).
  public var isConnected: Bool { state.withLock { $0.isConnected } }

  /// Whether this peer's connection keeps a persistent session (MQTT 5, the default protocol):
  /// the broker queues the frames for its inbox while it is away, and a persistent broker keeps
  /// them across a restart. The session expires ``sessionExpiry(outageLimit:keepAlive:)`` after
  /// the connection ends. Under MQTT 3.1.1, which cannot bound a session's life, the session is
  /// clean: what the broker held for the peer when it died is lost.
  public var usesPersistentSession: Bool { state.withLock { $0.isPersistent } }

  /// The seconds the broker keeps a peer's session once its connection ends: the outage limit
  /// and a keep-alive, so that a peer back within the limit finds its inbox's queue, and one
  /// that ended (or was killed) costs the broker nothing for long.
  public static func sessionExpiry(outageLimit: Duration, keepAlive: Int) -> UInt32 {
    UInt32(clamping: outageLimit.components.seconds + Int64(max(0, keepAlive)) + 1)
  }

  /// The longest pause between two reconnection attempts: a quarter of the outage limit, from 1
  /// to 5 s, so that a link reconnects well within the limit once the broker is back (a session
  /// outlives an outage that ends at least this long before the limit).
  public static func reconnectDelayLimit(outageLimit: Duration) -> UInt32 {
    UInt32(clamping: min(5, max(1, outageLimit.components.seconds / 4)))
  }

  /// How many messages from the broker were refused: payloads that are no presence or frame,
  /// ids that do not match, retained frames, oversized payloads.
  public var refusedCount: Int { refusals.withLock { $0.count } }
  /// Why the last one was (or the broker's last refusal of this peer's publication or
  /// subscription: its ACL).
  public var lastRefusal: String? { refusals.withLock { $0.last } }

  // MARK: PeerLink

  public func start(_ handler: @escaping @Sendable (PeerLinkEvent) -> Void) throws(LinkError) {
    var options: MQTTConnectionOptions
    do throws(MQTTError) {
      options = try MQTTConnectionOptions(environment: MQTTConnectionOptions.processEnvironment)
    } catch {
      throw LinkError(error.description)
    }
    // A persistent session keeps what the broker holds for this peer's inbox across a restart
    // of a persistent broker; only MQTT 5 can bound its life, so MQTT 3.1.1 gets a clean one.
    let isPersistent = options.protocolVersion == .v5
    options.sessionExpiry = Self.sessionExpiry(outageLimit: outageLimit, keepAlive: keepAlive)
    options.reconnectDelayLimit = Self.reconnectDelayLimit(outageLimit: outageLimit)
    let lock = try makeLocalFiles()
    directory.sweepStale(except: local.id)
    let client: MQTTClient
    do {
      client = try MQTTClient(
        clientIdentifier: topics.clientIdentifier(local.id), cleanSession: !isPersistent,
        will: MQTTMessage(
          topic: topics.presence(local.id), payload: [], quality: .atLeastOnce, isRetained: true),
        maximumPayloadBytes: codec.maximumFrameBytes + 4
      ) { [weak self] event in self?.handle(event) }
    } catch {
      removeLocalFiles(lock)
      throw LinkError(error.description)
    }
    let work = state.withLock { state in
      state.handler = handler
      state.client = client
      state.lock = lock
      state.isPersistent = isPersistent
      return state.work
    }
    do { try client.connect(to: broker, options: options, keepAlive: keepAlive) } catch {
      state.withLock {
        $0.client = nil
        $0.lock = nil
      }
      removeLocalFiles(lock)
      throw LinkError(error.description)
    }
    var started = SystemThread.detach { [self] in runHeartbeat() }
    if started, let work { started = SystemThread.detach { [self] in runWork(work) } }
    state.withLock { $0.threads = started ? (work == nil ? 1 : 2) : 0 }
    guard started else {
      stop()
      throw LinkError("no thread for the peer link")
    }
  }

  public func advertise(_ advertisement: PeerAdvertisement?) {
    let frame = advertisement.flatMap { try? codec.encode($0.frame) }
    let payload = frame ?? PeerTopics.online
    state.withLock { state in
      // For `peer list` and the dashboard here (``PeerDirectory/brokerAdvertisementPath(_:)``),
      // under the lock: what advertises last is what the file says.
      if state.lock != nil { writeAdvertisementFile(frame) }
      if state.presence != payload {
        state.earlierPresences = Array((state.earlierPresences + [state.presence]).suffix(4))
      }
      state.presence = payload
      guard state.isConnected, !state.isStopping, let client = state.client else { return }
      _ = try? client.publish(payload, to: topics.presence(local.id), quality: .atLeastOnce, retained: true)
    }
  }

  public func browse(_ service: ServiceType?) {
    state.withLock { $0.isBrowsing = service == topics.service }
    // Announced (or forgotten) by the heartbeat thread, at once: not here, where the caller may
    // hold what an event's handler needs.
    heartbeatWake.signal()
  }

  public func send(_ frame: PeerFrame, to peer: PeerIdentity) -> Bool {
    guard peer.id != local.id, let bytes = try? codec.encode(frame) else { return false }
    let quality: MQTTQuality =
      frame.kind == .data && !frame.flags.contains(.reliable) ? .atMostOnce : .atLeastOnce
    let topic = topics.inbox(of: peer.id, from: local.id)
    return state.withLock { state -> Bool in
      guard !state.isStopping, state.isConnected, let client = state.client,
        let remote = state.remotes[peer.id], remote.heard != nil, remote.heardSinceConnecting
      else { return false }
      // Under the lock: frames to one peer are queued in the order they were sent.
      do { try client.publish(bytes, to: topic, quality: quality, retained: false) } catch { return false }
      state.contacts[peer.id] = peer
      // This peer's engine speaks to it again (an invitation, an answer): a new session.
      state.departed.remove(peer.id)
      // This peer leaving: the neighbour numbers afresh if it joins again. (Departures sent
      // name peers reached through others, none of whose frames come through this neighbour.)
      if frame.kind == .leave { state.received[peer.id] = nil }
      return true
    }
  }

  public func stop() {
    let (client, isConnected, threads, lock) = state.withLock { state in
      let was = state.isStopping
      state.isStopping = true
      return (state.client, state.isConnected && !was, was ? 0 : state.threads, state.lock)
    }
    heartbeatWake.signal()
    workWake.signal()
    let deadline = DispatchTime.now() + .seconds(2)
    if threads > 0 { _ = heartbeatEnded.wait(timeout: deadline) }
    // The work thread may be the caller (a handler that stops its peer): not waited for then.
    if threads > 1 && workThread.load(ordering: .acquiring) != UInt(pthread_self()) {
      _ = workEnded.wait(timeout: deadline)
    }
    if let client {
      // The frames queued before (the session's `leave`s) go first; then the empty presence
      // removes the retained one and tells every peer, as the Will would.
      if isConnected {
        _ = try? client.publish(
          [], to: topics.presence(local.id), quality: .atLeastOnce, retained: true, timeout: 2)
      }
      client.disconnect()
    }
    state.withLock {
      $0.client = nil
      $0.isConnected = false
      $0.lock = nil
    }
    if let lock { removeLocalFiles(lock) }
  }

  // MARK: PeerEventWorkLink

  public func setEventWork(_ work: @escaping @Sendable () -> Void) {
    state.withLock { $0.work = work }
  }

  public func eventsWaiting() {
    workPending.store(true, ordering: .releasing)
    workWake.signal()
  }

  /// The thread that hands events over: the network thread reads on while a handler is slow.
  private func runWork(_ work: @Sendable () -> Void) {
    workThread.store(UInt(pthread_self()), ordering: .releasing)
    defer { workEnded.signal() }
    while true {
      workWake.wait()
      if state.withLock({ $0.isStopping }) { return }
      if workPending.exchange(false, ordering: .acquiringAndReleasing) { work() }
    }
  }

  // MARK: Local files

  /// The run lock and the identity file, which the `peer` verbs list running peers by.
  private func makeLocalFiles() throws(LinkError) -> RunLock {
    let lock = try directory.takeRunLock(for: local)
    do {
      let identity = try codec.encode(PeerAdvertisement(peer: local, service: topics.service).frame)
      try DeviceFiles.writeAtomically(identity, to: directory.identityPath(local.id))
    } catch {
      lock.release()
      throw LinkError("cannot write the peer's identity file: \(error)")
    }
    return lock
  }

  /// Writes `frame` as this peer's broker advertisement file, or removes it (`nil`).
  private func writeAdvertisementFile(_ frame: [UInt8]?) {
    let path = directory.brokerAdvertisementPath(local.id)
    guard let frame else {
      _ = unlink(path)
      return
    }
    do throws(SystemCallFailure) { try DeviceFiles.writeAtomically(frame, to: path) } catch {
      refuse("cannot write the peer's advertisement file: \(error.message)", id: nil)
    }
  }

  private func removeLocalFiles(_ lock: RunLock) {
    _ = unlink(directory.brokerAdvertisementPath(local.id))
    _ = unlink(directory.identityPath(local.id))
    _ = unlink(directory.lockPath(local.id))
    lock.release()
  }

  // MARK: The client's thread

  private func handle(_ event: MQTTEvent) {
    switch event {
    case .connected:
      let client = state.withLock { state -> MQTTClient? in
        guard !state.isStopping, let client = state.client else { return nil }
        state.isConnected = true
        for id in state.remotes.keys { state.remotes[id]?.heardSinceConnecting = false }
        return client
      }
      guard let client else { return }
      do {
        try client.subscribe(topics.presenceFilter, quality: .atLeastOnce)
        try client.subscribe(topics.inboxFilter(of: local.id), quality: .atLeastOnce)
        try client.subscribe(topics.probeTopic, quality: .atMostOnce)
        // Under the lock, as ``advertise(_:)`` publishes: the broker keeps the newest presence.
        _ = try state.withLock { state throws(MQTTError) in
          try client.publish(
            state.presence, to: topics.presence(local.id), quality: .atLeastOnce, retained: true)
        }
        // The others answer with a live presence: this peer hears them at once.
        try client.publish(PeerTopics.probe, to: topics.probeTopic, quality: .atMostOnce, retained: false)
      } catch {
        refuse("the broker connection failed at once: \(error)", id: nil)
      }
    case .disconnected:
      // An outage begins: no peer is taken for gone for its silence until ``outageLimit`` has
      // passed since (the earliest outage since it was last heard counts).
      state.withLock { state in
        let was = state.isConnected
        state.isConnected = false
        guard was, !state.isStopping else { return }
        let until = ContinuousClock.now + outageLimit
        for (id, remote) in state.remotes where remote.heard != nil {
          state.remotes[id]?.excusedUntil = min(remote.excusedUntil ?? until, until)
        }
      }
      heartbeatWake.signal()
    case .refused(let reason):
      // The broker did not accept a publication or subscription (its ACL): said at once, as a
      // device link says it, instead of a peer that runs on unseen.
      refusals.withLock { $0.last = reason }
      emitting.withLock { _ in emit([.denied(reason)]) }
    case .received(let message):
      receive(message)
    case .dropped(let reason):
      refuse(reason, id: nil)
    case .published:
      break
    }
  }

  private func receive(_ message: MQTTMessage) {
    switch topics.place(of: message.topic) {
    case .presence(let id)?:
      guard id != local.id else {
        defendPresence(message.payload)
        return
      }
      receivePresence(message, of: id)
    case .inbox(let to, let from)?:
      guard to == local.id, from != local.id else {
        refuse("a frame on \(DisplayText.field(message.topic)), not this peer's inbox", id: nil)
        return
      }
      receiveFrame(message, from: from)
    case .probe?:
      guard message.payload == PeerTopics.probe, !message.isRetained else {
        refuse("a probe that is not a live \"probe\"", id: nil)
        return
      }
      // Answered by the heartbeat thread: at once, or at most one beat per
      // ``probeAnswerMilliseconds`` however many probes come (never none).
      state.withLock { $0.isBeatRequested = true }
      heartbeatWake.signal()
    case nil:
      refuse(
        "a message on \(DisplayText.field(message.topic)), which is none of this service's topics", id: nil)
    }
  }

  /// This peer's own presence, as the broker echoes it: another payload than the link's own,
  /// now or earlier (an echo of one from before advertising changed), was published there by
  /// someone else (an empty one would make every peer take this one for gone), so the link
  /// publishes its own again.
  ///
  /// An empty one (this peer's Will, published by the broker while this peer was cut off alone,
  /// and queued in its session; or anyone's) made every peer that heard it take this one for
  /// gone and end its session with it: this peer ends its sessions too (its contacts hang up),
  /// rather than speak into sessions that are gone on the other side.
  private func defendPresence(_ payload: [UInt8]) {
    emitting.withLock { _ in
      let (refused, ended) = state.withLock { state -> (Bool, [PeerIdentity]) in
        guard payload != state.presence, !state.earlierPresences.contains(payload), !state.isStopping,
          let client = state.client
        else { return (false, []) }
        var ended: [PeerIdentity] = []
        if payload.isEmpty {
          ended = state.contacts.sorted { $0.key < $1.key }.map(\.value)
          state.contacts = [:]
          state.received = [:]
        }
        if state.isConnected {
          _ = try? client.publish(
            state.presence, to: topics.presence(local.id), quality: .atLeastOnce, retained: true)
        }
        return (true, ended)
      }
      emit(ended.map { .hungUp($0) })
      if refused { countRefusal("another presence published on this peer's own presence topic") }
    }
  }

  private func receivePresence(_ message: MQTTMessage, of id: UInt64) {
    let payload = message.payload
    var advertisement: PeerAdvertisement?
    let gone = payload.isEmpty
    if !gone && payload != PeerTopics.online {
      guard payload.count <= presenceCodec.maximumFrameBytes + 4 else {
        refuse(
          "a presence of \(payload.count) bytes: at most \(presenceCodec.maximumFrameBytes + 4) are accepted",
          id: id)
        return
      }
      do throws(PeerFrameError) {
        let decoded = try PeerAdvertisement(frame: try presenceCodec.decode(payload))
        guard decoded.peer.id == id, decoded.service == topics.service else {
          refuse("a presence on \(PeerDirectory.hex(id)) advertises another peer or service", id: id)
          return
        }
        advertisement = decoded
      } catch {
        refuse("a presence that is not an advertisement: \(error)", id: id)
        return
      }
    }
    let isLive = !gone && !message.isRetained
    let isFull = state.withLock { $0.remotes[id] == nil && $0.remotes.count >= Self.maximumRemotes }
    guard gone || !isFull else {
      refuse("a presence of one peer more than \(Self.maximumRemotes), the most kept", id: nil)
      return
    }
    emitting.withLock { _ in
      let events = state.withLock { state -> [PeerLinkEvent] in
        if gone {
          state.departed.remove(id)
          var remote = state.remotes.removeValue(forKey: id) ?? Remote()
          remote.advertisement = nil
          remote.heard = nil
          state.received[id] = nil
          return Self.settle(
            &remote, contact: state.contacts.removeValue(forKey: id), browsing: state.isBrowsing)
        }
        var remote = state.remotes[id] ?? Remote()
        remote.advertisement = advertisement
        if isLive {
          remote.heard = .now
          remote.heardSinceConnecting = true
          remote.excusedUntil = nil
          if state.departed.remove(id) != nil { sendLeave(to: id, in: state) }
        }
        defer { state.remotes[id] = remote }
        return Self.settle(&remote, contact: nil, browsing: state.isBrowsing)
      }
      emit(events)
    }
  }

  private func receiveFrame(_ message: MQTTMessage, from id: UInt64) {
    guard !message.isRetained else {
      refuse("a retained frame on the inbox (frames are live only)", id: id)
      return
    }
    let frame: PeerFrame
    do throws(PeerFrameError) { frame = try codec.decode(message.payload) } catch {
      refuse("a frame from \(PeerDirectory.hex(id)): \(error)", id: id)
      return
    }
    emitting.withLock { _ in
      let (neighbour, isCopy) = state.withLock { state -> (PeerIdentity?, Bool) in
        let known =
          frame.source.id == id ? frame.source : state.contacts[id] ?? state.remotes[id]?.advertisement?.peer
        guard let known, state.remotes[id] != nil || state.remotes.count < Self.maximumRemotes else {
          return (nil, false)
        }
        state.contacts[id] = known
        // A new session forming: the `leave` for the one that ended must not follow it.
        if frame.kind == .invitation || frame.kind == .answer { state.departed.remove(id) }
        // Heard, but not live: after a reconnection the frame may have waited in this peer's
        // session, so it does not end an outage's excuse (only a live presence does).
        state.remotes[id, default: Remote()].heard = .now
        state.remotes[id]?.heardSinceConnecting = true
        Self.forget(after: frame, of: id, in: &state.received)
        if let key = FrameKey(frame), state.received[id, default: RecentFrames()].insert(key) == false {
          return (known, true)
        }
        return (known, false)
      }
      // QoS 1 delivers again what was in flight when a connection dropped: dropped here, once.
      if isCopy { return }
      guard let neighbour else {
        refusals.withLock {
          $0.count += 1
          $0.last =
            "a frame relayed by \(PeerDirectory.hex(id)), which is not a known neighbour (or one more "
            + "than the \(Self.maximumRemotes) peers kept)"
        }
        return
      }
      emit([.received(frame, from: neighbour)])
    }
  }

  /// What changed for the engine about `remote` (its presence just changed, or time passed):
  /// `announced` once it advertises and was heard live, `withdrawn` once it does not, and
  /// `hungUp` for a `contact` that is gone.
  private static func settle(_ remote: inout Remote, contact: PeerIdentity?, browsing: Bool)
    -> [PeerLinkEvent]
  {
    var events: [PeerLinkEvent] = []
    let current = remote.heard == nil ? nil : remote.advertisement
    if !browsing {
      remote.announced = nil  // the engine forgets found peers without `lost` when browsing stops
    } else if let announced = remote.announced, current?.peer.id != announced.peer.id {
      events.append(.withdrawn(announced.peer))
      remote.announced = nil
    }
    if browsing, let current, current != remote.announced {
      events.append(.announced(current))
      remote.announced = current
    }
    if let contact { events.append(.hungUp(contact)) }
    return events
  }

  private func emit(_ events: [PeerLinkEvent]) {
    guard !events.isEmpty, let handler = state.withLock({ $0.isStopping ? nil : $0.handler }) else { return }
    for event in events { handler(event) }
  }

  /// Counts a refusal.
  private func countRefusal(_ reason: String) {
    refusals.withLock {
      $0.count += 1
      $0.last = reason
    }
  }

  /// Counts a refusal and, when `id` names a peer, reports it to the engine.
  private func refuse(_ reason: String, id: UInt64?) {
    countRefusal(reason)
    guard let id else { return }
    emitting.withLock { _ in
      let known = state.withLock { $0.contacts[id] ?? $0.remotes[id]?.advertisement?.peer }
      guard let name = try? PeerName("?"), let peer = known ?? PeerIdentity(name: name, id: id) else {
        return
      }
      emit([.refused(.malformed(reason), from: peer)])
    }
  }

  // MARK: The heartbeat thread

  /// Publishes the live presence every heartbeat, finds peers gone silent, and announces what a
  /// change of browsing asks for.
  private func runHeartbeat() {
    defer { heartbeatEnded.signal() }
    let window = Duration.milliseconds(Self.probeAnswerMilliseconds)
    var nextBeat = ContinuousClock.now
    while true {
      let now = ContinuousClock.now
      let (requested, last) = state.withLock { ($0.isBeatRequested, $0.lastBeat) }
      // When a probe's answer may go: one window after the last beat.
      var answerAt = requested ? (last.map { $0 + window } ?? now) : nil
      if now >= nextBeat || answerAt.map({ now >= $0 }) == true {
        publishHeartbeat()
        nextBeat = now + heartbeat
        answerAt = nil
      }
      // Woken when the first peer heard falls silent too, not at the next beat only: a peer
      // stopped is gone ``missedHeartbeats`` heartbeats after it was last heard, not up to one
      // more (the keep-alive's bound, which load then overran).
      let silentAt = settleAll()
      let wakeAt = min(nextBeat, answerAt ?? nextBeat, silentAt ?? nextBeat)
      let nanoseconds = max(0, (wakeAt - ContinuousClock.now) / .nanoseconds(1))
      _ = heartbeatWake.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, 3.6e12))))
      if state.withLock({ $0.isStopping }) { return }
    }
  }

  /// Settles every known peer: silent ones are gone (``missedHeartbeats`` heartbeats without a
  /// word, or, when a broker outage excuses the silence, once ``outageLimit`` has passed since
  /// the outage began). A contact gone so is sent a `leave`, which it reads if it comes back
  /// (frozen, or cut off alone: its session queued it), and another when it is next heard live,
  /// so that it ends the session too. When
  /// the first of those still heard will be silent too long (`nil`: none is heard).
  private func settleAll() -> ContinuousClock.Instant? {
    let silence = heartbeat * Self.missedHeartbeats
    return emitting.withLock { _ in
      let (events, silentAt) = state.withLock { state -> ([PeerLinkEvent], ContinuousClock.Instant?) in
        var events: [PeerLinkEvent] = []
        var silentAt: ContinuousClock.Instant?
        let now = ContinuousClock.now
        for id in state.remotes.keys.sorted() {
          guard var remote = state.remotes[id] else { continue }
          var contact: PeerIdentity?
          if let heard = remote.heard {
            // Just past the bound, so that the check then finds it silent.
            let due = max(heard + silence, remote.excusedUntil ?? heard) + .milliseconds(1)
            if now >= due {
              remote.heard = nil
              remote.excusedUntil = nil
              contact = state.contacts.removeValue(forKey: id)
              state.received[id] = nil
              if contact != nil {
                if state.departed.count < Self.maximumRemotes { state.departed.insert(id) }
                sendLeave(to: id, in: state)
              }
            } else {
              silentAt = min(silentAt ?? due, due)
            }
          }
          events += Self.settle(&remote, contact: contact, browsing: state.isBrowsing)
          state.remotes[id] = remote
        }
        return (events, silentAt)
      }
      emit(events)
      return silentAt
    }
  }

  /// Tells the peer `id`, which this link took for gone, that this peer left its session: a
  /// `leave` in its inbox (queued by the broker while it is away), when connected. A peer that
  /// is not in a session with this one ignores it.
  private func sendLeave(to id: UInt64, in state: borrowing LinkState) {
    guard state.isConnected, !state.isStopping, let client = state.client,
      let bytes = try? codec.encode(PeerFrame(kind: .leave, source: local))
    else { return }
    _ = try? client.publish(
      bytes, to: topics.inbox(of: id, from: local.id), quality: .atLeastOnce, retained: false)
  }

  /// This peer's presence, live (not retained, QoS 0), when connected.
  private func publishHeartbeat() {
    let topic = topics.presence(local.id)
    state.withLock { state in
      state.isBeatRequested = false
      guard state.isConnected, !state.isStopping, let client = state.client else { return }
      state.lastBeat = .now
      _ = try? client.publish(state.presence, to: topic, quality: .atMostOnce, retained: false)
    }
  }
}
