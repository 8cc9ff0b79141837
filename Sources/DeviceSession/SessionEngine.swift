import Synchronization

/// One device's WatchConnectivity session over a ``DeviceLink`` and a ``SessionStorage``.
///
/// The engine does no I/O of its own: it decides, from what the link and the caller hand it,
/// what to store, what to send and what to deliver. The semantics are WatchConnectivity's:
///
/// - **Activation**: `notActivated` until ``activate()``, which starts the link. Deliveries wait
///   in a queue until a handler is set (``setDeliveryHandler(_:)``), so a handler set before or
///   after activation misses nothing.
/// - **Application context** (``updateApplicationContext(_:identifier:deliveringIdentical:)``):
///   MMWormhole's one dictionary, the identifier merged in; the latest wins. Persisted on both
///   sides; sent when the counterpart is reachable, otherwise when it next becomes reachable,
///   and only the newest. A context identical to the current one is neither sent nor delivered
///   (MMWormhole #85) unless `deliveringIdentical` asks.
/// - **Messages** (``sendMessage(_:identifier:replyTimeout:replyHandler:)``): live, in order,
///   never stored; `notReachable` (7007) unless the counterpart is reachable; a reply that does
///   not come in time is `replyTimedOut` (7012).
/// - **File transfers** (``transferFile(_:identifier:)``): queued on disk, sent in order when the
///   counterpart is reachable, removed when it acknowledges having stored them; ids make a
///   resend after a crash harmless. Outstanding ones can be listed and cancelled.
///
/// Safe to use from any thread; the handler is called one delivery at a time, in order.
public final class SessionEngine: Sendable {
  /// The handler's type.
  public typealias DeliveryHandler = @Sendable (SessionDelivery) -> Void
  /// A reply's outcome: its payload, or why none came.
  public typealias ReplyHandler = @Sendable (Result<[UInt8], SessionError>) -> Void
  /// The observer's type (see ``setObserver(_:)``).
  public typealias Observer = @Sendable (SessionEvent) -> Void

  /// This device's role; frames from anything but the counterpart's are refused.
  public let role: DeviceRole
  private let link: any DeviceLink
  private let storage: any SessionStorage
  private let clock: @Sendable () -> Int64
  private let timer: any SessionTimer
  private let maximumPayloadBytes: Int
  private let state: Mutex<State>
  private let deliveries = Handoff<SessionDelivery>()
  private let observations = Handoff<SessionEvent>()

  private struct PendingReply {
    var handler: ReplyHandler
    var deadline: ContinuousClock.Instant
    var seconds: Double
    var identifier: String
    var time: Int64
  }

  private struct State {
    var activation = ActivationState.notActivated
    var isReachable = false
    var applicationContext: SessionContext
    var acknowledgedContextVersion: UInt64
    var receivedContext: SessionContext
    var outbound: TransferQueue
    var inFlight: Set<UInt64> = []
    var lastReceivedTransfer: UInt64
    var nextMessageSequence: UInt64 = 1
    /// Whether the undelivered context was set with `deliveringIdentical` (not kept across runs).
    var pendingContextForced = false
    var pendingReplies: [UInt64: PendingReply] = [:]
    /// The deadline the reply timer sleeps until, `nil` when none sleeps.
    var timerDeadline: ContinuousClock.Instant?
    /// The link was taken over (``LinkDenial/isLasting``): what messages fail with instead of 7007.
    var lastingDenial: LinkDenial?
  }

  /// What ``updateApplicationContext(_:identifier:deliveringIdentical:)`` did.
  public enum ContextUpdate: Sendable, Equatable {
    /// Sent to the reachable counterpart.
    case sent(version: UInt64)
    /// Stored; delivered when the counterpart is next reachable.
    case queued(version: UInt64)
    /// Identical to the current context: neither sent nor delivered.
    case unchanged
  }

  /// A session for `role` that loads its state from `storage`.
  ///
  /// - Parameters:
  ///   - clock: The time, in nanoseconds since 1970, that frames carry.
  ///   - timer: What calls the engine back when a reply's deadline passes.
  ///   - maximumPayloadBytes: The largest archive sent; larger ones fail with `payloadTooLarge`.
  public init(
    role: DeviceRole, link: any DeviceLink, storage: any SessionStorage,
    clock: @escaping @Sendable () -> Int64, timer: any SessionTimer,
    maximumPayloadBytes: Int = FrameCodec.defaultMaximumFrameBytes - 1024
  ) throws(SessionError) {
    self.role = role
    self.link = link
    self.storage = storage
    self.clock = clock
    self.timer = timer
    self.maximumPayloadBytes = maximumPayloadBytes
    let snapshot = try storage.load()
    state = Mutex(
      State(
        applicationContext: snapshot.applicationContext,
        acknowledgedContextVersion: snapshot.acknowledgedContextVersion,
        receivedContext: snapshot.receivedContext,
        outbound: TransferQueue(snapshot.outboundTransfers),
        lastReceivedTransfer: snapshot.lastReceivedTransfer))
  }

  // MARK: State

  public var activationState: ActivationState { state.withLock { $0.activation } }
  /// Whether the counterpart is reachable now (`WCSession.isReachable`).
  public var isReachable: Bool { state.withLock { $0.isReachable } }
  /// Why the link no longer reaches the counterpart, when what carries it denied this device for
  /// good (another run of its role took its place): messages then fail with
  /// ``SessionError/linkDenied(_:)`` instead of `notReachable`. `nil` otherwise.
  public var linkDenial: LinkDenial? { state.withLock { $0.lastingDenial } }
  /// This device's application context (`WCSession.applicationContext`).
  public var applicationContext: SessionContext { state.withLock { $0.applicationContext } }
  /// Whether the counterpart has yet to store the current application context.
  public var hasUndeliveredContext: Bool {
    state.withLock { $0.applicationContext.version > $0.acknowledgedContextVersion }
  }
  /// The counterpart's context as last received (`WCSession.receivedApplicationContext`).
  public var receivedApplicationContext: SessionContext { state.withLock { $0.receivedContext } }
  /// Transfers not yet stored by the counterpart, oldest first (`outstandingFileTransfers`).
  public var outstandingTransfers: [FileTransfer] { state.withLock { Array($0.outbound.transfers) } }

  // MARK: Activation

  /// Sets the handler and hands it every delivery that waited for one. `nil` makes
  /// deliveries wait again.
  public func setDeliveryHandler(_ handler: DeliveryHandler?) {
    deliveries.setConsumer(handler)
    deliveries.drain()
  }

  /// Sets the observer, which is handed every ``SessionEvent`` from now on (none is kept while
  /// there is none: set it before ``activate()``), in the order the session made them, one at a
  /// time, outside the session's locks (so it may call the engine), and before the delivery or
  /// reply handler hears of the same thing. It is called on the thread that made the event: keep
  /// it short, or hand the event on.
  public func setObserver(_ observer: Observer?) {
    observations.setConsumer(observer)
  }

  /// `notActivated` → `activated`: starts the link, so the counterpart can reach this device.
  public func activate() throws(SessionError) {
    let isNew = state.withLock { state -> Bool in
      guard state.activation == .notActivated else { return false }
      state.activation = .activated
      return true
    }
    guard isNew else { return }
    do {
      try link.start { [weak self] event in self?.handle(event) }
    } catch {
      state.withLock { $0.activation = .notActivated }
      throw .linkUnavailable(error.reason)
    }
    emit([.activated])
  }

  /// Stops the link (the counterpart sees this device unreachable) and fails waiting replies.
  public func deactivate() {
    defer { observations.drain() }
    link.stop()
    let replies = state.withLock { state -> [PendingReply] in
      state.activation = .notActivated
      return disconnect(&state)
    }
    observations.drain()
    for reply in replies { reply.handler(.failure(.notReachable)) }
  }

  // MARK: Application context

  /// Merges `payload` for `identifier` into the application context and delivers the result to
  /// the counterpart, now or when it is next reachable.
  @discardableResult
  public func updateApplicationContext(
    _ payload: [UInt8], identifier: String, deliveringIdentical: Bool = false
  )
    throws(SessionError) -> ContextUpdate
  {
    defer { observations.drain() }
    do throws(SessionError) {
      try Self.checkIdentifier(identifier)
    } catch {
      observe(.contextFailed(identifier: identifier, bytes: payload.count, error: error))
      throw error
    }
    return try state.withLock { state throws(SessionError) -> ContextUpdate in
      do throws(SessionError) {
        return try updateContext(
          &state, payload, identifier: identifier, deliveringIdentical: deliveringIdentical)
      } catch {
        observe(.contextFailed(identifier: identifier, bytes: payload.count, error: error))
        throw error
      }
    }
  }

  private func updateContext(
    _ state: inout State, _ payload: [UInt8], identifier: String, deliveringIdentical: Bool
  ) throws(SessionError) -> ContextUpdate {
    guard state.activation == .activated else { throw .notActivated }
    var entries = state.applicationContext.entries
    entries[identifier] = payload
    if entries == state.applicationContext.entries && !deliveringIdentical { return .unchanged }
    let context = SessionContext(entries: entries, version: state.applicationContext.version + 1)
    let encoded = context.encodedEntries()
    guard encoded.count <= maximumPayloadBytes else {
      throw .payloadTooLarge(bytes: encoded.count, limit: maximumPayloadBytes)
    }
    try storage.saveApplicationContext(context, acknowledgedVersion: state.acknowledgedContextVersion)
    state.applicationContext = context
    state.pendingContextForced = deliveringIdentical
    observe(.contextQueued(identifier: identifier, version: context.version, bytes: payload.count))
    // Handed to a queuing link while the counterpart is away, it is still queued (for it).
    let handedOver =
      canSend(state)
      && sendContext(state, payload: encoded, identifier: identifier, forced: deliveringIdentical)
    return handedOver && state.isReachable
      ? .sent(version: context.version) : .queued(version: context.version)
  }

  /// Removes `identifiers` from the application context and delivers the result to the
  /// counterpart as a context update (the latest wins), now or when it is next reachable; its
  /// received context then lacks them, and they are among the changed identifiers. `unchanged`
  /// when none of them is in the context: nothing is sent.
  @discardableResult
  public func removeFromApplicationContext(_ identifiers: [String]) throws(SessionError) -> ContextUpdate {
    defer { observations.drain() }
    return try state.withLock { state throws(SessionError) -> ContextUpdate in
      guard state.activation == .activated else { throw .notActivated }
      var entries = state.applicationContext.entries
      for identifier in identifiers { entries[identifier] = nil }
      guard entries != state.applicationContext.entries else { return .unchanged }
      let context = SessionContext(entries: entries, version: state.applicationContext.version + 1)
      try storage.saveApplicationContext(context, acknowledgedVersion: state.acknowledgedContextVersion)
      let removed = Set(identifiers).filter { state.applicationContext.entries[$0] != nil }
        .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
      state.applicationContext = context
      state.pendingContextForced = false
      observe(.contextRemoved(identifiers: removed, version: context.version))
      let handedOver =
        canSend(state) && sendContext(state, payload: context.encodedEntries(), identifier: "", forced: false)
      return handedOver && state.isReachable
        ? .sent(version: context.version) : .queued(version: context.version)
    }
  }

  /// Whether a context or a transfer goes to the link now: when the counterpart is reachable,
  /// or when the link keeps them for it while it is away (``DeviceLink/queuesWhileUnreachable``).
  private func canSend(_ state: State) -> Bool { state.isReachable || link.queuesWhileUnreachable }

  private func sendContext(_ state: State, payload: [UInt8], identifier: String, forced: Bool) -> Bool {
    link.send(
      DeviceFrame(
        kind: .context, identifier: identifier, sequence: state.applicationContext.version, sender: role,
        time: clock(), flags: forced ? .deliversIdentical : [], payload: payload))
  }

  // MARK: Messages

  /// Sends a live message. Throws `notReachable` (7007) unless the counterpart is reachable;
  /// nothing is stored. With a `replyHandler`, it is called once: with the reply, with
  /// `replyTimedOut` (7012) after `replyTimeout` seconds, or with `notReachable` if the
  /// counterpart goes away first.
  ///
  /// - Returns: The message's sequence number.
  @discardableResult
  public func sendMessage(
    _ payload: [UInt8], identifier: String, replyTimeout: Double = 10, replyHandler: ReplyHandler? = nil
  ) throws(SessionError) -> UInt64 {
    defer { observations.drain() }
    do throws(SessionError) {
      return try send(payload, identifier: identifier, replyTimeout: replyTimeout, replyHandler: replyHandler)
    } catch {
      observe(
        .messageFailed(
          identifier: identifier, sequence: nil, time: clock(), bytes: payload.count, error: error))
      throw error
    }
  }

  private func send(
    _ payload: [UInt8], identifier: String, replyTimeout: Double, replyHandler: ReplyHandler?
  ) throws(SessionError) -> UInt64 {
    try Self.checkIdentifier(identifier)
    guard payload.count <= maximumPayloadBytes else {
      throw .payloadTooLarge(bytes: payload.count, limit: maximumPayloadBytes)
    }
    let deadline = ContinuousClock.now + .nanoseconds(Int64(max(0, min(replyTimeout, 1e9)) * 1e9))
    let (sequence, wakeAt) = try state.withLock {
      state throws(SessionError) -> (UInt64, ContinuousClock.Instant?) in
      guard state.activation == .activated else { throw .notActivated }
      guard state.isReachable else { throw state.lastingDenial.map(SessionError.linkDenied) ?? .notReachable }
      let sequence = state.nextMessageSequence
      state.nextMessageSequence += 1
      let time = clock()
      if let replyHandler {
        state.pendingReplies[sequence] = PendingReply(
          handler: replyHandler, deadline: deadline, seconds: replyTimeout, identifier: identifier, time: time
        )
      }
      let frame = DeviceFrame(
        kind: .message, identifier: identifier, sequence: sequence, sender: role, time: time,
        flags: replyHandler == nil ? [] : .replyRequested, payload: payload)
      guard link.send(frame) else {
        state.pendingReplies[sequence] = nil
        throw .notReachable
      }
      // Observed before the lock is left: a reply cannot be taken (and observed) before it.
      observe(
        .messageSent(
          identifier: identifier, sequence: sequence, time: time, bytes: payload.count,
          replyRequested: replyHandler != nil))
      // One timer sleeps until the earliest deadline; a message with a later one (the usual
      // case: equal timeouts) costs no timer of its own.
      guard replyHandler != nil, state.timerDeadline.map({ deadline < $0 }) ?? true else {
        return (sequence, nil)
      }
      state.timerDeadline = deadline
      return (sequence, deadline)
    }
    if let wakeAt { startTimer(until: wakeAt) }
    return sequence
  }

  private func startTimer(until deadline: ContinuousClock.Instant) {
    let delay = ContinuousClock.now.duration(to: deadline)
    let (seconds, attoseconds) = delay.components
    timer.schedule(after: max(0, Double(seconds) + Double(attoseconds) / 1e18)) { [weak self] in
      self?.expireReplies()
    }
  }

  /// Fails the replies whose deadline passed with `replyTimedOut` and sets the timer for the next.
  private func expireReplies() {
    defer { observations.drain() }
    let now = ContinuousClock.now
    let (expired, next) = state.withLock { state -> ([PendingReply], ContinuousClock.Instant?) in
      let due = state.pendingReplies.filter { $0.value.deadline <= now }.sorted { $0.key < $1.key }
      for (sequence, reply) in due {
        state.pendingReplies[sequence] = nil
        observe(
          .replyFailed(
            identifier: reply.identifier, sequence: sequence, time: reply.time,
            error: .replyTimedOut(seconds: reply.seconds)))
      }
      let next = state.pendingReplies.values.map(\.deadline).min()
      if let timer = state.timerDeadline, timer > now, next.map({ timer <= $0 }) ?? true {
        return (due.map(\.value), nil)  // a timer for an earlier deadline is already set
      }
      state.timerDeadline = next
      return (due.map(\.value), next)
    }
    observations.drain()
    for reply in expired { reply.handler(.failure(.replyTimedOut(seconds: reply.seconds))) }
    if let next { startTimer(until: next) }
  }

  /// Sends a live message and waits for its reply: the reply's payload, or `notReachable`
  /// (7007) or `replyTimedOut` (7012).
  public func sendMessage(_ payload: [UInt8], identifier: String, replyTimeout: Double)
    async throws(SessionError)
    -> [UInt8]
  {
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<Result<[UInt8], SessionError>, Never>) in
      do throws(SessionError) {
        try sendMessage(payload, identifier: identifier, replyTimeout: replyTimeout) {
          continuation.resume(returning: $0)
        }
      } catch {
        continuation.resume(returning: .failure(error))
      }
    }
    return try result.get()
  }

  /// Sends a live message whose reply the calling thread waits for: as
  /// ``sendMessage(_:identifier:replyTimeout:replyHandler:)``, and then, where the link allows it
  /// (``DeviceLink/receiveOnCallingThread(until:deadline:starting:)``), this thread reads what
  /// arrives until `replyHandler` has been called or the reply's deadline has passed, so that no
  /// other thread is woken to hand the reply over. Anything else that arrives meanwhile is handed
  /// to the delivery handler and the observer on this thread, in order as ever. `replyHandler` is
  /// called once, on this thread or (a timeout, a link that reads on its own thread) another.
  /// Not to be called from the delivery handler or the observer.
  ///
  /// - Returns: The message's sequence number.
  @discardableResult
  public func sendMessageReadingReply(
    _ payload: [UInt8], identifier: String, replyTimeout: Double, replyHandler: @escaping ReplyHandler
  ) throws(SessionError) -> UInt64 {
    let replied = Mutex(false)
    let deadline = ContinuousClock.now + .nanoseconds(Int64(max(0, min(replyTimeout, 1e9)) * 1e9))
    var sequence: UInt64 = 0
    var refusal: SessionError?
    _ = link.receiveOnCallingThread(
      until: { refusal != nil || replied.withLock { $0 } }, deadline: deadline
    ) {
      do throws(SessionError) {
        sequence = try sendMessage(payload, identifier: identifier, replyTimeout: replyTimeout) { result in
          replyHandler(result)
          replied.withLock { $0 = true }
        }
      } catch {
        refusal = error
      }
    }
    if let refusal { throw refusal }
    return sequence
  }

  /// Answers a message whose sender waits for a reply.
  public func reply(to message: ReceivedMessage, with payload: [UInt8]) throws(SessionError) {
    guard message.replyRequested else { return }
    guard payload.count <= maximumPayloadBytes else {
      throw .payloadTooLarge(bytes: payload.count, limit: maximumPayloadBytes)
    }
    let frame = DeviceFrame(
      kind: .reply, identifier: message.identifier, sequence: message.sequence, sender: role, time: clock(),
      payload: payload)
    guard link.send(frame) else { throw .notReachable }
  }

  // MARK: File transfers

  /// Queues `payload` for `identifier` (stored before this returns) and sends it when the
  /// counterpart is reachable, after every transfer queued before it.
  @discardableResult
  public func transferFile(_ payload: [UInt8], identifier: String) throws(SessionError) -> FileTransfer {
    defer { observations.drain() }
    do throws(SessionError) {
      return try queueTransfer(payload, identifier: identifier)
    } catch {
      observe(.transferFailed(identifier: identifier, bytes: payload.count, error: error))
      throw error
    }
  }

  private func queueTransfer(_ payload: [UInt8], identifier: String) throws(SessionError) -> FileTransfer {
    try Self.checkIdentifier(identifier)
    guard payload.count <= maximumPayloadBytes else {
      throw .payloadTooLarge(bytes: payload.count, limit: maximumPayloadBytes)
    }
    return try state.withLock { state throws(SessionError) -> FileTransfer in
      guard state.activation == .activated else { throw .notActivated }
      let transfer = try storage.enqueueTransfer(identifier: identifier, payload: payload, time: clock())
      state.outbound.append(transfer)
      // Before it is sent: its acknowledgement (and delivery) cannot be observed first.
      observe(.transferQueued(FileTransferSummary(transfer)))
      if canSend(state) && link.send(transferFrame(transfer)) { state.inFlight.insert(transfer.id) }
      return transfer
    }
  }

  /// Cancels an outstanding transfer that has not been sent yet: it is never delivered.
  public func cancelTransfer(_ id: UInt64) throws(SessionError) {
    defer { observations.drain() }
    try state.withLock { state throws(SessionError) in
      guard let transfer = state.outbound.transfers.first(where: { $0.id == id }) else {
        throw .transferNotFound(id)
      }
      guard !state.inFlight.contains(id) else { throw .transferAlreadySent(id) }
      try storage.removeTransfer(id)
      _ = state.outbound.remove(id)
      observe(.transferCancelled(FileTransferSummary(transfer)))
    }
  }

  private func transferFrame(_ transfer: FileTransfer) -> DeviceFrame {
    DeviceFrame(
      kind: .transfer, identifier: transfer.identifier, transferID: transfer.id, sender: role,
      time: transfer.time,
      payload: transfer.payload)
  }

  // MARK: Link events

  private func handle(_ event: LinkEvent) {
    defer { observations.drain() }
    switch event {
    case .reachabilityChanged(true):
      state.withLock { state in
        state.isReachable = true
        state.inFlight = []
        if state.applicationContext.version > state.acknowledgedContextVersion {
          _ = sendContext(
            state, payload: state.applicationContext.encodedEntries(), identifier: "",
            forced: state.pendingContextForced)
        }
        for transfer in state.outbound.transfers where link.send(transferFrame(transfer)) {
          state.inFlight.insert(transfer.id)
        }
      }
      emit([.reachabilityChanged(true)])
    case .reachabilityChanged(false):
      let replies = state.withLock { disconnect(&$0) }
      observations.drain()
      for reply in replies { reply.handler(.failure(.notReachable)) }
      emit([.reachabilityChanged(false)])
    case .refused(let error):
      emit([.failure(.refusedFrame(error.description))])
    case .refusedInput(let input):
      // Not the counterpart's: its sender is unknown, and said so.
      emit([.failure(.refusedInput(input))])
    case .denied(let denial):
      // The link's own failure, said as such: not the counterpart's frame.
      if denial.isLasting { state.withLock { $0.lastingDenial = denial } }
      emit([.failure(.linkDenied(denial))])
    case .received(let frame):
      guard frame.sender == role.counterpart else { return refuseOwnRole(frame) }
      receive(frame)
    case .receivedFrames(let frames):
      receive(batch: frames)
    }
  }

  private func refuseOwnRole(_ frame: DeviceFrame) {
    emit([.failure(.refusedFrame("a frame claims to come from the \(frame.sender), which is this device"))])
  }

  /// Frames that arrived together: runs of transfers are stored as one batch, runs of transfer
  /// acknowledgements taken as one; everything else (and the order) as one frame at a time.
  private func receive(batch frames: [DeviceFrame]) {
    var index = 0
    while index < frames.count {
      let frame = frames[index]
      guard frame.sender == role.counterpart else {
        refuseOwnRole(frame)
        index += 1
        continue
      }
      var end = index + 1
      if frame.kind == .transfer || frame.kind == .transferAcknowledgement {
        while end < frames.count && frames[end].kind == frame.kind && frames[end].sender == frame.sender {
          end += 1
        }
      }
      if end - index == 1 {
        receive(frame)
      } else if frame.kind == .transfer {
        receiveTransfers(frames[index..<end])
      } else {
        finishTransfers(frames[index..<end].map(\.transferID))
      }
      index = end
    }
  }

  /// Marks the counterpart unreachable; returns the replies that now fail.
  private func disconnect(_ state: inout State) -> [PendingReply] {
    state.isReachable = false
    // What a queuing link took is still on its way (it waits in the broker): not cancellable.
    if !link.queuesWhileUnreachable { state.inFlight = [] }
    for (sequence, reply) in state.pendingReplies.sorted(by: { $0.key < $1.key }) {
      observe(
        .replyFailed(identifier: reply.identifier, sequence: sequence, time: reply.time, error: .notReachable)
      )
    }
    let replies = state.pendingReplies.sorted { $0.key < $1.key }.map(\.value)
    state.pendingReplies = [:]
    return replies
  }

  private func receive(_ frame: DeviceFrame) {
    switch frame.kind {
    case .message:
      observe(
        .messageReceived(
          identifier: frame.identifier, sequence: frame.sequence, time: frame.time, bytes: frame.payload.count
        ))
      emit([
        .message(
          ReceivedMessage(
            identifier: frame.identifier, payload: frame.payload, sequence: frame.sequence, time: frame.time,
            replyRequested: frame.flags.contains(.replyRequested)))
      ])
    case .reply:
      let reply = state.withLock { state -> PendingReply? in
        guard let reply = state.pendingReplies.removeValue(forKey: frame.sequence) else { return nil }
        observe(
          .replyReceived(
            identifier: reply.identifier, sequence: frame.sequence, time: reply.time,
            bytes: frame.payload.count))
        return reply
      }
      observations.drain()
      reply?.handler(.success(frame.payload))
    case .context:
      receiveContext(frame)
    case .contextAcknowledgement:
      state.withLock { state in
        guard frame.sequence > state.acknowledgedContextVersion,
          frame.sequence <= state.applicationContext.version
        else { return }
        // The acknowledgement is kept in memory even if it cannot be stored: at worst the
        // context is sent again on the next connection, and the receiver ignores its version.
        try? storage.saveApplicationContext(state.applicationContext, acknowledgedVersion: frame.sequence)
        state.acknowledgedContextVersion = frame.sequence
        observe(
          .contextDelivered(version: frame.sequence, bytes: state.applicationContext.encodedEntries().count))
      }
    case .transfer:
      receiveTransfer(frame)
    case .transferAcknowledgement:
      finishTransfers([frame.transferID])
    case .push, .deepLink:
      break  // routed by the device that is sent them (its control socket), not by the session
    }
  }

  /// The counterpart stored these transfers: they leave the queue (on disk in one removal).
  private func finishTransfers(_ ids: [UInt64]) {
    let finished = state.withLock { state -> [UInt64] in
      let finished = ids.filter { state.outbound.remove($0) }
      guard !finished.isEmpty else { return [] }
      // Not removable from disk: sent again next time and ignored by their ids there.
      try? storage.removeTransfers(finished)
      for id in finished { state.inFlight.remove(id) }
      observe(.transfersDelivered(finished))
      return finished
    }
    if !finished.isEmpty { emit(finished.map { .transferFinished($0) }) }
  }

  private func receiveContext(_ frame: DeviceFrame) {
    let delivery = state.withLock { state -> SessionDelivery? in
      let acknowledgement = DeviceFrame(
        kind: .contextAcknowledgement, sequence: frame.sequence, sender: role, time: clock())
      guard frame.sequence > state.receivedContext.version else {
        _ = link.send(acknowledgement)
        return nil
      }
      let entries: [String: [UInt8]]
      do throws(FrameError) { entries = try SessionContext.decodeEntries(frame.payload) } catch {
        return .failure(.refusedFrame(error.description))
      }
      let old = state.receivedContext.entries
      let context = SessionContext(entries: entries, version: frame.sequence)
      do throws(SessionError) { try storage.saveReceivedContext(context) } catch { return .failure(error) }
      state.receivedContext = context
      _ = link.send(acknowledgement)
      let changed = Set(old.keys).union(entries.keys).filter { old[$0] != entries[$0] }
        .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
      if changed.isEmpty && !frame.flags.contains(.deliversIdentical) { return nil }
      let removed = changed.filter { entries[$0] == nil }
      observe(
        .contextReceived(
          version: frame.sequence, identifiers: changed, bytes: frame.payload.count, removed: removed))
      return .context(ReceivedContext(context: context, changedIdentifiers: changed, time: frame.time))
    }
    if let delivery { emit([delivery]) }
  }

  private func receiveTransfer(_ frame: DeviceFrame) {
    let delivery = state.withLock { state -> SessionDelivery? in
      let acknowledgement = DeviceFrame(
        kind: .transferAcknowledgement, transferID: frame.transferID, sender: role, time: clock())
      guard frame.transferID > state.lastReceivedTransfer else {
        _ = link.send(acknowledgement)
        return nil
      }
      let transfer = FileTransfer(
        id: frame.transferID, identifier: frame.identifier, payload: frame.payload, time: frame.time)
      do throws(SessionError) {
        try storage.storeReceivedTransfer(transfer)
      } catch {
        guard case .invalidIdentifier = error else {
          // Not acknowledged when it cannot be stored now: the sender keeps it and sends it again.
          return .failure(error)
        }
        // It can never be stored: taken as received (and reported) so it is not sent forever.
        do throws(SessionError) { try storage.skipReceivedTransfer(frame.transferID) } catch {
          return .failure(error)
        }
        state.lastReceivedTransfer = frame.transferID
        _ = link.send(acknowledgement)
        return .failure(error)
      }
      state.lastReceivedTransfer = frame.transferID
      _ = link.send(acknowledgement)
      return .transfer(transfer)
    }
    if let delivery { emit([delivery]) }
  }

  /// A run of transfers: the new ones (ids above the newest stored) are stored as one batch,
  /// then every one is acknowledged and the new ones delivered, in order. When the batch holds
  /// a transfer that can never be stored, it is taken one transfer at a time instead.
  private func receiveTransfers(_ frames: ArraySlice<DeviceFrame>) {
    let outcome = state.withLock { state -> (deliveries: [SessionDelivery], oneByOne: Bool) in
      var newest = state.lastReceivedTransfer
      var fresh: [FileTransfer] = []
      for frame in frames where frame.transferID > newest {
        newest = frame.transferID
        fresh.append(
          FileTransfer(
            id: frame.transferID, identifier: frame.identifier, payload: frame.payload, time: frame.time))
      }
      if !fresh.isEmpty {
        do throws(SessionError) {
          try storage.storeReceivedTransfers(fresh)
        } catch {
          if case .invalidIdentifier = error { return ([], true) }
          // Not acknowledged when they cannot be stored now: the sender sends them again.
          for frame in frames where frame.transferID <= state.lastReceivedTransfer {
            _ = link.send(acknowledgement(of: frame))
          }
          return ([.failure(error)], false)
        }
        state.lastReceivedTransfer = newest
      }
      for frame in frames { _ = link.send(acknowledgement(of: frame)) }
      return (fresh.map { .transfer($0) }, false)
    }
    if outcome.oneByOne {
      for frame in frames { receiveTransfer(frame) }
    } else if !outcome.deliveries.isEmpty {
      emit(outcome.deliveries)
    }
  }

  private func acknowledgement(of frame: DeviceFrame) -> DeviceFrame {
    DeviceFrame(kind: .transferAcknowledgement, transferID: frame.transferID, sender: role, time: clock())
  }

  // MARK: Deliveries

  /// Queues deliveries for the handler. The observer is handed what happened first, so that a
  /// journal has every event before the handler hears of it.
  private func emit(_ items: [SessionDelivery]) {
    observations.drain()
    deliveries.append(items, whileUnconsumed: true)
    deliveries.drain()
  }

  // MARK: Observations

  /// Queues an event for the observer; may be called inside the state lock (events queued there
  /// keep the order of the state changes). `observations.drain()` hands them over.
  private func observe(_ event: SessionEvent) {
    observations.append(CollectionOfOne(event), whileUnconsumed: false)
  }

  private static func checkIdentifier(_ identifier: String) throws(SessionError) {
    if identifier.isEmpty { throw .invalidIdentifier(identifier, reason: "it is empty") }
    if identifier.utf8.contains(0) {
      throw .invalidIdentifier(identifier, reason: "it contains a NUL character")
    }
    if identifier.utf8.count > FrameCodec.maximumIdentifierBytes {
      throw .invalidIdentifier(
        identifier, reason: "it is longer than \(FrameCodec.maximumIdentifierBytes) bytes")
    }
  }
}
