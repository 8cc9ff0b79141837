import ArchivedValues
import CMosquitto
import Dispatch
import Glibc
import Synchronization

/// A thin, safe wrapper over one libmosquitto client: connect to a broker, publish, subscribe,
/// and events (connection, messages, acknowledgements) from the client's own network thread.
///
/// libmosquitto is loaded on first use (``load()``), not linked, so that everything else builds
/// and runs on a machine without it; a client made without it fails with ``MQTTError/libraryMissing(_:)``.
/// The network thread reconnects by itself, with backoff, when the connection drops; the handler
/// hears ``MQTTEvent/connected`` each time and should subscribe there.
///
/// Credentials, the CA certificates for `mqtts://` and the protocol version come from the
/// environment (``MQTTConnectionOptions``), read by ``connect(to:keepAlive:)``, so every program
/// that connects has them without a word of its own. The client speaks MQTT 5 by default: a
/// publication or subscription the broker does not authorize (its ACL) is reported as
/// ``MQTTEvent/refused(_:)`` with the broker's reason, instead of vanishing.
///
/// Everything from the network is hostile: a message with a topic that is not UTF-8 or a
/// payload above `maximumPayloadBytes` is dropped (``MQTTEvent/dropped(reason:)``, and counted
/// in ``droppedCount``) before its bytes are copied; the handler never sees it as received.
///
/// ```swift
/// let client = try MQTTClient(clientIdentifier: "example", cleanSession: true) { event in
///   if case .received(let message) = event { print(message.topic) }
/// }
/// try client.connect(to: BrokerAddress(parsing: "mqtt://127.0.0.1:1883"))
/// try client.subscribe("example/#", quality: .atLeastOnce)
/// client.disconnect()
/// ```
public final class MQTTClient: Sendable {
  /// The handler's type: called on the client's network thread, one event at a time.
  public typealias Handler = @Sendable (MQTTEvent) -> Void

  /// The largest payload sent or accepted by default: a device frame's limit (64 MiB and a header).
  public static let defaultMaximumPayloadBytes = (64 << 20) + 2048

  /// The identifier the broker knows this client by (a persistent session's name).
  public let clientIdentifier: String
  /// The largest payload this client sends or accepts.
  public let maximumPayloadBytes: Int
  private let cleanSession: Bool
  private let disablesNagle: Bool
  /// The own network loop's waker (`coalescesWrites`), told of every packet queued.
  private let waker: NetworkWaker?
  private let callbacks: Callbacks
  private let handle: Handle
  private let state = Mutex(ConnectionState())

  private struct ConnectionState {
    var isLooping = false
    var isClosed = false
    var loop: NetworkLoop?
  }

  /// The libmosquitto object, sent between threads: libmosquitto locks it itself once its
  /// thread runs (``NetworkLoop``, in threaded mode).
  private struct Handle: @unchecked Sendable {
    let pointer: OpaquePointer
  }

  /// What the C callbacks reach through libmosquitto's user-data pointer.
  private final class Callbacks: Sendable {
    let handler: Handler
    let maximumPayloadBytes: Int
    /// Publications that finished while someone waits for one (``publish(_:to:quality:retained:timeout:)``).
    let completions = Mutex(Completions())
    /// What the callbacks need to put the broker's answers in words.
    let session = Mutex(Session())
    /// The own loop's waker, told when the broker accepts a connection.
    let waker: NetworkWaker?
    /// How many connections the broker accepted (its CONNACK): the reconnection pauses start
    /// afresh after each.
    let acceptances = Mutex(0)

    struct Completions {
      /// One semaphore per waiting thread, signalled at each completion.
      var waiters: [ObjectIdentifier: DispatchSemaphore] = [:]
      /// Message identifiers that finished, with the broker's reason code (0x80 and above: refused).
      var finished: [Int32: Int32] = [:]
    }

    struct Session {
      var protocolVersion = MQTTConnectionOptions.ProtocolVersion.v5
      /// The topics of QoS 1 publications and the filters of subscriptions the broker has not yet
      /// answered, by message identifier (16 bits, so at most 65535 of each).
      var topics: [Int32: String] = [:]
      var filters: [Int32: String] = [:]
      /// libmosquitto's error-level log lines since the last connection (a TLS failure's details).
      var lastError: String?
      var dropped = 0
      /// While ``connect(to:options:keepAlive:)`` waits for a TLS handshake's outcome: signalled
      /// by the broker's first answer, the connection's end (``handshakeFailure``: its words) or
      /// an error logged (libmosquitto's network thread ends after a TLS error without a word).
      var handshakeWaiter: DispatchSemaphore?
      var handshakeFailure: String?
      /// Whether the broker answered the connection since ``connect(to:options:keepAlive:)`` began.
      var answered = false
      /// Over TLS: the broker's host and the CA file, for the words of a failure.
      var tls: (host: String, certificateAuthorityFile: String?, certificateFile: String?)?
    }

    init(handler: @escaping Handler, maximumPayloadBytes: Int, waker: NetworkWaker?) {
      self.handler = handler
      self.maximumPayloadBytes = maximumPayloadBytes
      self.waker = waker
    }

    /// The broker accepted a connection.
    func accepted() {
      acceptances.withLock { $0 &+= 1 }
      waker?.accepted()
    }

    /// libmosquitto's loop returned by itself (``NetworkLoop`` runs it again): over TLS, a lost
    /// connection or a failed handshake. Reported as a disconnection, with the logged words.
    func loopEnded(_ code: Int32) {
      let reason = session.withLock { session -> String? in
        var reason = MQTTClient.words(code)
        if let logged = session.lastError { reason += " (\(DisplayText.escaped(logged)))" }
        session.lastError = nil
        // While connect waits for the first handshake, its error says it (with the advice).
        if let waiter = session.handshakeWaiter {
          session.handshakeFailure = reason
          waiter.signal()
          return nil
        }
        guard code == CMOSQ_ERR_TLS, let tls = session.tls else { return reason }
        return MQTTClient.tlsAdvice(
          reason, host: tls.host, certificateAuthorityFile: tls.certificateAuthorityFile,
          certificateFile: tls.certificateFile)
      }
      if let reason { handler(.disconnected(reason: reason)) }
    }
  }

  /// Loads libmosquitto once; throws ``MQTTError/libraryMissing(_:)`` (every time) if it cannot be.
  public static func load() throws(MQTTError) {
    var reason = [CChar](repeating: 0, count: 512)
    guard cmosquitto_load(&reason, reason.count) == 0 else {
      throw .libraryMissing(
        String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
  }

  /// The loaded library's version, as `major.minor.revision` (it loads the library first).
  public static func libraryVersion() throws(MQTTError) -> String {
    try load()
    let version = cmosquitto_version()
    return "\(version / 1_000_000).\(version / 1000 % 1000).\(version % 1000)"
  }

  /// How many messages from the broker were dropped before reaching the handler: a topic that
  /// is not UTF-8, a payload above ``maximumPayloadBytes``.
  public var droppedCount: Int { callbacks.session.withLock { $0.dropped } }

  /// A client, not yet connected.
  ///
  /// - Parameters:
  ///   - clientIdentifier: The broker's name for this client. With `cleanSession: false` the
  ///     broker keeps its subscriptions, and queues QoS 1 messages for it while it is away.
  ///   - cleanSession: `true` to start afresh on every connection and be forgotten when it ends.
  ///   - will: Published by the broker when the connection ends without ``disconnect()``
  ///     (the process died, the network failed).
  ///   - disablesNagle: `true` to send each packet at once (`TCP_NODELAY`), for a client that
  ///     publishes a steady stream (a bridge): with Nagle's algorithm (the default) a QoS 1
  ///     publication that waits for the in-flight window waits for a delayed TCP
  ///     acknowledgement too (about 40 ms on Linux), while a burst published at once goes out in
  ///     fewer, fuller segments. Not the default: a request and its answer (a session message,
  ///     one in flight) gain nothing from it (`wormhole-bench broker`, session p50 the same
  ///     within noise either way).
  ///   - coalescesWrites: `true` to run the client's own network loop instead of libmosquitto's
  ///     (plain TCP only; over TLS the client runs libmosquitto's): libmosquitto's loop is
  ///     woken, and takes one pass, for every message published (it writes a byte to a socket
  ///     pair for each, and reads one per pass); the own loop is woken once per call of
  ///     ``publish(_:)`` and writes the whole batch in one pass with `TCP_CORK` set meanwhile,
  ///     so that it leaves in full segments. For a client that publishes batches (a bridge).
  ///     Events, reconnections and ``disconnect()`` are the same either way.
  ///   - handler: Called on the client's network thread with every ``MQTTEvent``.
  public init(
    clientIdentifier: String, cleanSession: Bool, will: MQTTMessage? = nil,
    maximumPayloadBytes: Int = MQTTClient.defaultMaximumPayloadBytes, disablesNagle: Bool = false,
    coalescesWrites: Bool = false, handler: @escaping Handler
  ) throws(MQTTError) {
    try Self.load()
    guard !clientIdentifier.utf8.contains(0), clientIdentifier.utf8.count <= 65535 else {
      throw .invalidArgument("a client identifier must have no NUL character and at most 65535 bytes")
    }
    self.clientIdentifier = clientIdentifier
    self.maximumPayloadBytes = maximumPayloadBytes
    self.cleanSession = cleanSession
    self.disablesNagle = disablesNagle
    waker = coalescesWrites ? try NetworkWaker() : nil
    callbacks = Callbacks(handler: handler, maximumPayloadBytes: maximumPayloadBytes, waker: waker)
    let context = Unmanaged.passUnretained(callbacks).toOpaque()
    guard let pointer = cmosquitto_new(clientIdentifier, cleanSession, context) else {
      throw .invalidArgument("mosquitto_new refused the client identifier or ran out of memory")
    }
    // The handle is set once nothing can fail: each failure above destroys the object itself.
    if let will {
      guard !will.topic.utf8.contains(0) else {
        cmosquitto_destroy(pointer)
        throw .invalidArgument("a topic must have no NUL character")
      }
      guard will.payload.count <= maximumPayloadBytes else {
        cmosquitto_destroy(pointer)
        throw .payloadTooLarge(bytes: will.payload.count, limit: maximumPayloadBytes)
      }
      let code = will.payload.withUnsafeBytes {
        cmosquitto_will_set(
          pointer, will.topic, Int32(will.payload.count), $0.baseAddress, will.quality.rawValue,
          will.isRetained)
      }
      guard code == CMOSQ_ERR_SUCCESS else {
        cmosquitto_destroy(pointer)
        throw .invalidArgument("the Last Will on \(DisplayText.field(will.topic)): \(Self.words(code))")
      }
    }
    handle = Handle(pointer: pointer)
    _ = cmosquitto_reconnect_delay_set(pointer, 1, Self.defaultReconnectDelayLimit, false)
    cmosquitto_connect_callback_set(pointer) { _, context, code in
      guard let callbacks = MQTTClient.callbacks(context) else { return }
      callbacks.session.withLock {
        $0.answered = true
        $0.lastError = nil  // what a later failure logs is about it alone
        $0.handshakeWaiter?.signal()
      }
      if code == 0 {
        callbacks.accepted()
        callbacks.handler(.connected)
      } else {
        let version = callbacks.session.withLock { $0.protocolVersion }
        var words = String(
          cString: version == .v5 ? cmosquitto_reason_string(code) : cmosquitto_connack_string(code))
        // MQTT 5's "bad user name or password" (134) and "not authorized" (135); 3.1.1's 4 and 5.
        if (version == .v5 && (code == 134 || code == 135))
          || (version == .v3_1_1 && (code == 4 || code == 5))
        {
          words +=
            " (set \(MQTTConnectionOptions.usernameVariable) and \(MQTTConnectionOptions.passwordFileVariable) to the broker's credentials)"
        }
        callbacks.handler(.refused(words))
      }
    }
    cmosquitto_disconnect_callback_set(pointer) { _, context, code in
      guard let callbacks = MQTTClient.callbacks(context) else { return }
      var reason = code == 0 ? "disconnected" : MQTTClient.words(code)
      callbacks.session.withLock { session in
        // A TLS failure's details are in the log (a host name that does not match, for one).
        if code == CMOSQ_ERR_TLS, let logged = session.lastError {
          reason += " (\(DisplayText.escaped(logged)))"
        }
        if let waiter = session.handshakeWaiter {
          session.handshakeFailure = reason
          waiter.signal()
        }
      }
      callbacks.handler(.disconnected(reason: reason))
    }
    cmosquitto_publish_v5_callback_set(pointer) { _, context, identifier, reason, _ in
      guard let callbacks = MQTTClient.callbacks(context) else { return }
      let topic = callbacks.session.withLock { $0.topics.removeValue(forKey: identifier) }
      callbacks.completions.withLock {
        guard !$0.waiters.isEmpty else { return }
        $0.finished[identifier] = reason
        for waiter in $0.waiters.values { waiter.signal() }
      }
      if reason >= 0x80 {
        let what = topic.map { "the publication on \(DisplayText.field($0))" } ?? "publication \(identifier)"
        callbacks.handler(.refused("the broker did not accept \(what): \(MQTTClient.refusal(reason))"))
      } else {
        callbacks.handler(.published(identifier))
      }
    }
    cmosquitto_subscribe_callback_set(pointer) { _, context, identifier, count, granted in
      guard let callbacks = MQTTClient.callbacks(context) else { return }
      let filter = callbacks.session.withLock { $0.filters.removeValue(forKey: identifier) }
      guard let granted, count > 0 else { return }
      // One subscription per request: its granted QoS, or a failure (0x80 and above).
      let reason = granted[0]
      guard reason >= 0x80 else { return }
      let what = filter.map { "the subscription to \(DisplayText.field($0))" } ?? "subscription \(identifier)"
      callbacks.handler(.refused("the broker did not accept \(what): \(MQTTClient.refusal(reason))"))
    }
    cmosquitto_log_callback_set(pointer) { _, context, level, text in
      guard level & CMOSQ_LOG_ERR != 0, let text, let callbacks = MQTTClient.callbacks(context) else {
        return
      }
      let line = String(
        decoding: UnsafeRawBufferPointer(start: text, count: strnlen(text, 1024)), as: UTF8.self)
      callbacks.session.withLock { session in
        if let earlier = session.lastError {
          if earlier.utf8.count < 1024 { session.lastError = earlier + "; " + line }
        } else {
          session.lastError = line
        }
        session.handshakeWaiter?.signal()
      }
    }
    cmosquitto_message_callback_set(pointer) { _, context, message in
      guard let callbacks = MQTTClient.callbacks(context), let message else { return }
      let event = MQTTClient.event(for: message.pointee, limit: callbacks.maximumPayloadBytes)
      if case .dropped = event { callbacks.session.withLock { $0.dropped += 1 } }
      callbacks.handler(event)
    }
  }

  deinit {
    disconnect()
    cmosquitto_destroy(handle.pointer)
  }

  /// Connects with the options the environment sets (``MQTTConnectionOptions/init(environment:)``:
  /// credentials, the CA file for `mqtts://`, the protocol version), blocking until the
  /// connection is made or fails, and starts the network thread, which reports
  /// ``MQTTEvent/connected`` once the broker accepts. Called once.
  ///
  /// - Parameter keepAlive: Seconds between pings when idle; a broker that hears nothing for
  ///   one and a half times this publishes the Last Will.
  public func connect(to broker: BrokerAddress, keepAlive: Int = 10) throws(MQTTError) {
    try connect(
      to: broker, options: MQTTConnectionOptions(environment: MQTTConnectionOptions.processEnvironment),
      keepAlive: keepAlive)
  }

  /// Connects with `options` instead of the environment's (see ``connect(to:keepAlive:)``).
  ///
  /// An `mqtts://` broker is reached over TLS only: its certificate must be signed by a CA in
  /// `options.certificateAuthorityFile` (the system's CAs when `nil`) and name its host; when
  /// it is not, the connection fails with OpenSSL's words, and nothing is sent in plain text.
  /// A CA file with an `mqtt://` address is refused, as a likely mistake.
  public func connect(to broker: BrokerAddress, options: MQTTConnectionOptions, keepAlive: Int = 10)
    throws(MQTTError)
  {
    guard !broker.host.utf8.contains(0) else { throw .invalidAddress(broker.description, reason: "a NUL") }
    try state.withLock { state throws(MQTTError) in
      guard !state.isLooping, !state.isClosed else {
        throw .invalidArgument("the client is already connected or was disconnected")
      }
      try configure(for: broker, options: options)
      callbacks.session.withLock {
        $0.protocolVersion = options.protocolVersion
        $0.lastError = nil
        $0.tls =
          broker.usesTLS ? (broker.host, options.certificateAuthorityFile, options.certificateFile) : nil
      }
      // MQTT 5 ends a session at disconnection unless told otherwise: a persistent one never
      // expires, unless the options say when.
      var properties: OpaquePointer? = nil
      defer { cmosquitto_property_free_all(&properties) }
      if options.protocolVersion == .v5 && !cleanSession {
        _ = cmosquitto_property_add_int32(
          &properties, CMQTT_PROP_SESSION_EXPIRY_INTERVAL, options.sessionExpiry ?? UInt32.max)
      }
      // libmosquitto's "exponential" backoff is quadratic (attempts 1, 5, 14, 30 s after a loss):
      // a broker back after 6 s was reconnected to after 14. Linear from 1 s, capped low: the
      // schedule of `reconnectDelay(failures:limit:)`, which the other loops follow.
      let delayLimit = min(max(1, options.reconnectDelayLimit ?? Self.defaultReconnectDelayLimit), 3600)
      _ = cmosquitto_reconnect_delay_set(handle.pointer, 1, delayLimit, false)
      let code = cmosquitto_connect_bind_v5(
        handle.pointer, broker.host, Int32(broker.port), Int32(max(5, keepAlive)), properties)
      guard code == CMOSQ_ERR_SUCCESS else {
        throw .connectionFailed(broker, reason: connectionFailure(code, broker: broker, options: options))
      }
      // The TLS handshake may end on the network thread (libmosquitto verifies the host name
      // there): over TLS, wait for its outcome, so that a certificate that fails is an error here.
      let waiter = broker.usesTLS ? DispatchSemaphore(value: 0) : nil
      callbacks.session.withLock {
        $0.handshakeWaiter = waiter
        $0.handshakeFailure = nil
        $0.answered = false
      }
      let callbacks = callbacks
      // libmosquitto's loop for TLS, whose handshake its loop drives.
      let loop = NetworkLoop(
        handle.pointer, waker: broker.usesTLS ? nil : waker, reconnectDelayLimit: delayLimit,
        acceptances: { callbacks.acceptances.withLock { $0 } }
      ) { code in
        callbacks.loopEnded(code)
      }
      let started = loop.start()
      guard started == CMOSQ_ERR_SUCCESS else {
        _ = cmosquitto_disconnect(handle.pointer)
        throw .connectionFailed(broker, reason: "no network thread: \(Self.words(started))")
      }
      state.isLooping = true
      state.loop = loop
      guard let waiter else { return }
      let woken = waiter.wait(timeout: .now() + .seconds(max(5, min(keepAlive, 60))))
      let failed = callbacks.session.withLock { session -> Bool in
        let failed = woken == .success && !session.answered
        if !failed { session.handshakeWaiter = nil }
        return failed
      }
      guard failed else { return }
      state.isLooping = false
      state.isClosed = true
      // Once the thread has ended, the logged words are complete. The waiter stays set until
      // then, so that the loop's end keeps them for this error (as `handshakeFailure`) instead
      // of reporting them as a disconnection and leaving "no details" here.
      loop.stop()
      callbacks.session.withLock { $0.handshakeWaiter = nil }
      state.loop = nil
      let (ended, logged) = callbacks.session.withLock { ($0.handshakeFailure, $0.lastError) }
      // The disconnection's words ("disconnected", when the broker closed on a certificate it
      // wants) carry OpenSSL's only for a TLS error: add them, they are what the advice reads.
      let details = logged.map(DisplayText.escaped)
      let reason =
        switch (ended, details) {
        case (let ended?, let details?) where !ended.contains(details): "\(ended) (\(details))"
        case (let ended?, _): ended
        case (nil, _): "\(Self.words(CMOSQ_ERR_TLS)) (\(details ?? "no details"))"
        }
      throw .connectionFailed(broker, reason: tlsAdvice(reason, broker: broker, options: options))
    }
  }

  /// Publishes `payload` on `topic`; returns its message identifier (``MQTTEvent/published(_:)``
  /// reports it when the broker has it, ``MQTTEvent/refused(_:)`` when the broker does not
  /// accept it, under MQTT 5). Queued, not blocking; fails when not connected.
  @discardableResult
  public func publish(
    _ payload: [UInt8], to topic: String, quality: MQTTQuality = .atMostOnce, retained: Bool = false
  ) throws(MQTTError) -> Int32 {
    let message = MQTTMessage(topic: topic, payload: payload, quality: quality, isRetained: retained)
    return try publish([message])[0]
  }

  /// Publishes `messages` in their order, from this thread, under one lock: what one step of a
  /// program produced (a model update's mailboxes and traffic entries) is queued at once, with no
  /// hand-off per message, and libmosquitto's network thread sends it as it can. Returns their
  /// message identifiers, in order (see ``publish(_:to:quality:retained:)``).
  ///
  /// Every message is checked (payload size, topic) before any is queued; a failure to queue
  /// one (not connected) throws, and the messages before it stay queued.
  @discardableResult
  public func publish(_ messages: [MQTTMessage]) throws(MQTTError) -> [Int32] {
    for message in messages {
      guard message.payload.count <= maximumPayloadBytes else {
        throw .payloadTooLarge(bytes: message.payload.count, limit: maximumPayloadBytes)
      }
      guard !message.topic.utf8.contains(0) else {
        throw .invalidArgument("a topic must have no NUL character")
      }
    }
    // Under the lock, so that the broker's answer (on the network thread) finds the topic.
    let (identifiers, failure) = callbacks.session.withLock { session -> ([Int32], (String, Int32)?) in
      var identifiers: [Int32] = []
      identifiers.reserveCapacity(messages.count)
      for message in messages {
        var identifier: Int32 = 0
        let code = message.payload.withUnsafeBytes {
          cmosquitto_publish(
            handle.pointer, &identifier, message.topic, Int32(message.payload.count), $0.baseAddress,
            message.quality.rawValue, message.isRetained)
        }
        guard code == CMOSQ_ERR_SUCCESS else { return (identifiers, (message.topic, code)) }
        if message.quality != .atMostOnce { session.topics[identifier] = message.topic }
        identifiers.append(identifier)
      }
      return (identifiers, nil)
    }
    // One wake for the whole batch (the own loop's; libmosquitto's was woken per message).
    waker?.wake()
    if let (topic, code) = failure {
      throw .operationFailed("publish on \(DisplayText.field(topic))", reason: Self.words(code))
    }
    return identifiers
  }

  /// Publishes and waits until the broker has the message (QoS 1) or it was sent (QoS 0):
  /// `false` when `timeout` seconds passed first. Throws ``MQTTError/operationFailed(_:reason:)``
  /// when the broker does not accept it (under MQTT 5: not authorized, quota exceeded).
  public func publish(
    _ payload: [UInt8], to topic: String, quality: MQTTQuality, retained: Bool, timeout: Double
  ) throws(MQTTError) -> Bool {
    let wake = DispatchSemaphore(value: 0)
    let key = ObjectIdentifier(wake)
    callbacks.completions.withLock { $0.waiters[key] = wake }
    defer {
      callbacks.completions.withLock {
        $0.waiters[key] = nil
        if $0.waiters.isEmpty { $0.finished = [:] }
      }
    }
    let identifier = try publish(payload, to: topic, quality: quality, retained: retained)
    let deadline = DispatchTime.now() + .milliseconds(Int(max(0, min(timeout, 3600)) * 1000))
    while true {
      if let reason = callbacks.completions.withLock({ $0.finished.removeValue(forKey: identifier) }) {
        guard reason < 0x80 else {
          throw .operationFailed("publish on \(DisplayText.field(topic))", reason: Self.refusal(reason))
        }
        return true
      }
      if wake.wait(timeout: deadline) == .timedOut { return false }
    }
  }

  /// Subscribes to `filter` (`+` and `#` wildcards allowed) at `quality`: messages arrive as
  /// ``MQTTEvent/received(_:)``. In a persistent session the broker keeps the subscription. A
  /// subscription the broker refuses is reported as ``MQTTEvent/refused(_:)``.
  ///
  /// With `excludingOwn` (MQTT 5's "no local"; ignored under MQTT 3.1.1, which lacks it) the
  /// broker sends none of this client's own publications back: a client that listens to topics
  /// it publishes on (a bridge to its own mailbox topics, for what an earlier run left there)
  /// does not receive, and the broker does not send, a copy of each.
  public func subscribe(_ filter: String, quality: MQTTQuality, excludingOwn: Bool = false) throws(MQTTError)
  {
    guard !filter.utf8.contains(0) else {
      throw .invalidArgument("a topic filter must have no NUL character")
    }
    let code = callbacks.session.withLock { session in
      var identifier: Int32 = 0
      let code =
        excludingOwn && session.protocolVersion == .v5
        ? cmosquitto_subscribe_v5(
          handle.pointer, &identifier, filter, quality.rawValue, CMQTT_SUB_OPT_NO_LOCAL)
        : cmosquitto_subscribe(handle.pointer, &identifier, filter, quality.rawValue)
      if code == CMOSQ_ERR_SUCCESS { session.filters[identifier] = filter }
      return code
    }
    waker?.wake()
    guard code == CMOSQ_ERR_SUCCESS else {
      throw .operationFailed("subscribe to \(DisplayText.field(filter))", reason: Self.words(code))
    }
  }

  /// Sends what libmosquitto has queued (acknowledgements of the messages received included)
  /// and waits for the broker's answers to the QoS 1 publications in flight, for at most
  /// ``flushTimeout`` (a dead broker does not hold it), then disconnects (no
  /// Last Will: the broker publishes it only for a connection that ends otherwise), waits for
  /// the network thread to end, and then for the broker to close the connection (at most
  /// ``flushTimeout`` more): no event comes after this returns, and the broker has handled
  /// every packet the client sent, so a persistent session that connects again at once is not
  /// handed again what it received. Not to be called from the handler. Safe to call more than once.
  public func disconnect() {
    let loop = state.withLock { state -> NetworkLoop? in
      defer {
        state.isLooping = false
        state.isClosed = true
        state.loop = nil
      }
      return state.isLooping ? state.loop : nil
    }
    guard let loop else { return }
    // libmosquitto 2.0's mosquitto_disconnect marks the client disconnected at once; a packet
    // that arrives before the network thread wrote the queue (the broker's acknowledgement of a
    // publication, a message) is then a protocol error, and the socket closes with the queue
    // unsent: a message just received was never acknowledged, and the broker delivered it again
    // to a persistent session (issue 15). And a socket closed with the broker's answers unread
    // is reset, which can make the broker drop what it had not read yet (the acknowledgement).
    // So the queue leaves first, and the broker answers the publications in flight.
    let deadline = ContinuousClock.now + Self.flushTimeout
    while cmosquitto_has_connection(handle.pointer) && ContinuousClock.now < deadline {
      let answered = callbacks.session.withLock { $0.topics.isEmpty }
      // No event says the queue is empty or the last answer came: look every 0.2 ms.
      if answered && cmosquitto_flush(handle.pointer, 0) == 0 { break }
      usleep(200)
    }
    // And a DISCONNECT written is not one the broker read: mosquitto reads one packet of a
    // connection per pass, so a client that connects again at once under the same identifier
    // (a persistent session) could be taken first, and the broker then closed the old
    // connection with the acknowledgements still unread, and delivered those messages again
    // (issue 15). Held, the connection outlives libmosquitto's close after the DISCONNECT until
    // the broker closes it, which it does once it has handled every packet before it.
    let held = cmosquitto_hold_connection(handle.pointer)
    loop.stop()
    _ = cmosquitto_await_close(held, Int32(Self.flushTimeout.components.seconds * 1000))
  }

  /// The longest pause between two reconnection attempts when the options give none (seconds):
  /// after a loss the attempts come 1, 3, 6, 10, 15 s after it, then every 5 s.
  public static let defaultReconnectDelayLimit: UInt32 = 5

  /// The pause, in seconds, before the `failures`-th attempt in a row to reconnect (counted
  /// from 1 since the broker last accepted a connection): `failures` seconds, at most `limit`
  /// (``MQTTConnectionOptions/reconnectDelayLimit``, at least 1 and at most 3600: an hour). So
  /// the attempts come 1, 3, 6,
  /// 10, 15 s after a loss, then every `limit` seconds (from 15 s with the default 5).
  ///
  /// Every loop keeps this one schedule: libmosquitto's (given it as its linear backoff), the
  /// client's own (`coalescesWrites`), and the reconnections after libmosquitto's loop returned
  /// (over TLS, a lost connection or a failed handshake).
  public static func reconnectDelay(failures: UInt32, limit: UInt32) -> UInt32 {
    cmosquitto_reconnect_delay(failures, limit)
  }

  /// How long ``disconnect()`` waits for the queued packets to leave and the broker to answer.
  public static let flushTimeout = Duration.seconds(1)

  // MARK: From C

  private static func callbacks(_ context: UnsafeMutableRawPointer?) -> Callbacks? {
    context.map { Unmanaged<Callbacks>.fromOpaque($0).takeUnretainedValue() }
  }

  private static func event(for message: mosquitto_message, limit: Int) -> MQTTEvent {
    guard let topicPointer = message.topic else { return .dropped(reason: "a message without a topic") }
    let topicLength = strnlen(topicPointer, 65536)
    guard topicLength < 65536 else { return .dropped(reason: "a topic longer than 65535 bytes") }
    let topicBytes = UnsafeRawBufferPointer(start: topicPointer, count: topicLength)
    guard let topic = String(validating: topicBytes, as: UTF8.self) else {
      return .dropped(reason: "a message whose topic is not UTF-8")
    }
    let length = Int(message.payloadlen)
    guard length >= 0, length <= limit else {
      return .dropped(
        reason: "a message of \(length) bytes on \(DisplayText.field(topic)), above the limit of \(limit)")
    }
    var payload: [UInt8] = []
    if length > 0, let bytes = message.payload {
      payload = Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }
    return .received(
      MQTTMessage(
        topic: topic, payload: payload, quality: message.qos >= 1 ? .atLeastOnce : .atMostOnce,
        isRetained: message.retain))
  }

  /// Sets the credentials, TLS and the protocol version on the libmosquitto object.
  private func configure(for broker: BrokerAddress, options: MQTTConnectionOptions) throws(MQTTError) {
    let version = options.protocolVersion == .v5 ? CMQTT_PROTOCOL_V5 : CMQTT_PROTOCOL_V311
    let set = cmosquitto_int_option(handle.pointer, CMOSQ_OPT_PROTOCOL_VERSION, version)
    guard set == CMOSQ_ERR_SUCCESS else {
      throw .invalidSettings("MQTT \(options.protocolVersion.rawValue): \(Self.words(set))")
    }
    // Nagle's algorithm off (see `disablesNagle`): measured with `wormhole-bench broker`, a
    // bridge's publications spread over time otherwise came 20 (the in-flight window) per 40 ms.
    if disablesNagle { _ = cmosquitto_int_option(handle.pointer, Self.tcpNoDelayOption, 1) }
    if let username = options.username {
      let code = cmosquitto_username_pw_set(handle.pointer, username, options.password)
      guard code == CMOSQ_ERR_SUCCESS else { throw .invalidSettings("the credentials: \(Self.words(code))") }
    }
    guard broker.usesTLS else {
      for (variable, file) in [
        (MQTTConnectionOptions.certificateAuthorityFileVariable, options.certificateAuthorityFile),
        (MQTTConnectionOptions.certificateFileVariable, options.certificateFile),
      ] {
        guard let file else { continue }
        throw .invalidSettings(
          "\(variable) is \(DisplayText.field(file)) but "
            + "\(broker) is plain text: use mqtts://\(broker.host):PORT for TLS, or unset it")
      }
      return
    }
    try options.checkClientCertificate()
    if options.certificateAuthorityFile != nil || options.certificateFile != nil {
      let file = options.certificateAuthorityFile
      if let file, access(file, R_OK) != 0 {
        throw .invalidSettings(
          "\(MQTTConnectionOptions.certificateAuthorityFileVariable) \(DisplayText.field(file)) cannot be read: "
            + String(cString: strerror(errno)))
      }
      // libmosquitto takes a client certificate only with a CA file or directory: without a CA
      // file, the system's directory (and, below, the system's CAs).
      let code = cmosquitto_tls_set(
        handle.pointer, file, file == nil ? MQTTConnectionOptions.systemCertificateDirectory : nil,
        options.certificateFile, options.keyFile)
      guard code == CMOSQ_ERR_SUCCESS else {
        let what = [
          file.map { "the CA file \(DisplayText.field($0))" },
          options.certificateFile.map { "the client certificate \(DisplayText.field($0))" },
          options.keyFile.map { "the key file \(DisplayText.field($0))" },
        ].compactMap { $0 }.joined(separator: ", ")
        throw .invalidSettings("\(what): refused: \(Self.words(code)) (each must be a PEM file)")
      }
    }
    if options.certificateAuthorityFile == nil {
      let code = cmosquitto_int_option(handle.pointer, CMOSQ_OPT_TLS_USE_OS_CERTS, 1)
      guard code == CMOSQ_ERR_SUCCESS else {
        throw .invalidSettings(
          "this libmosquitto cannot use the system's CA certificates: set "
            + "\(MQTTConnectionOptions.certificateAuthorityFileVariable) to the broker's CA file")
      }
    }
  }

  /// Why `mosquitto_connect` failed, with libmosquitto's logged details (OpenSSL's words for TLS).
  private func connectionFailure(_ code: Int32, broker: BrokerAddress, options: MQTTConnectionOptions)
    -> String
  {
    var reason = Self.words(code)
    // Over TLS, a broker that closes right after the handshake may be refusing a client certificate.
    if broker.usesTLS && [CMOSQ_ERR_PROTOCOL, CMOSQ_ERR_CONN_LOST, CMOSQ_ERR_ERRNO].contains(code) {
      return tlsAdvice(reason, broker: broker, options: options)
    }
    guard code == CMOSQ_ERR_TLS else { return reason }
    if let logged = callbacks.session.withLock({ $0.lastError }) {
      reason += " (\(DisplayText.escaped(logged)))"
    }
    return tlsAdvice(reason, broker: broker, options: options)
  }

  /// A TLS failure's `reason`, with what to check.
  private func tlsAdvice(_ reason: String, broker: BrokerAddress, options: MQTTConnectionOptions) -> String {
    Self.tlsAdvice(
      reason, host: broker.host, certificateAuthorityFile: options.certificateAuthorityFile,
      certificateFile: options.certificateFile)
  }

  static func tlsAdvice(
    _ reason: String, host: String, certificateAuthorityFile: String?, certificateFile: String? = nil
  ) -> String {
    if let advice = MQTTConnectionOptions.clientCertificateAdvice(reason, certificateFile: certificateFile) {
      return advice
    }
    // OpenSSL's words when what answers is no TLS server (a plain-text listener closes on the
    // TLS hello, or answers in plain MQTT), or none at all: the certificate is not the question
    // then, or not the only one.
    let lowered = reason.lowercased()
    let noTLS = ["unexpected eof", "wrong version number", "packet length too long", "record layer failure"]
    if noTLS.contains(where: lowered.contains) {
      return reason
        + ": the broker at \(DisplayText.field(host)) did not answer in TLS; is the port a plain-text"
        + " listener (then use mqtt://, or its TLS port, 8883 by default)? nothing was sent in plain text"
    }
    let authority =
      certificateAuthorityFile.map { "the CA file \(DisplayText.field($0))" } ?? "the system's CAs"
    let plainText =
      lowered.contains("no details")
      ? " the port may be a plain-text listener (then use mqtt://, or its TLS port, 8883 by default), or"
      : ""
    return reason + ":" + plainText
      + " the broker's certificate must be signed by \(authority) and name \(DisplayText.field(host))"
      + " (set \(MQTTConnectionOptions.certificateAuthorityFileVariable) to the broker's CA file);"
      + " nothing was sent in plain text"
  }

  /// libmosquitto's `MOSQ_OPT_TCP_NODELAY` (mosquitto.h, since 1.6).
  private static let tcpNoDelayOption: Int32 = 11

  /// The broker's reason code for a refused request, in words.
  private static func refusal(_ code: Int32) -> String {
    let words = code == 0x80 ? "Unspecified error" : String(cString: cmosquitto_reason_string(code))
    let hint = code == 135 ? "; the broker's ACL does not let this user use the topic" : ""
    return "\(words) (MQTT reason code \(code)\(hint))"
  }

  fileprivate static func words(_ code: Int32) -> String {
    // libmosquitto's words for a system error are the system's, which errno still holds.
    if code == CMOSQ_ERR_ERRNO { return String(cString: strerror(errno)) }
    return String(cString: cmosquitto_strerror(code))
  }
}
