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
/// Everything from the network is hostile: a message with a topic that is not UTF-8 or a
/// payload above `maximumPayloadBytes` is dropped (``MQTTEvent/dropped(reason:)``) before its
/// bytes are copied.
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
  private let callbacks: Callbacks
  private let handle: Handle
  private let state = Mutex(ConnectionState())

  private struct ConnectionState {
    var isLooping = false
    var isClosed = false
  }

  /// The libmosquitto object, sent between threads: libmosquitto locks it itself once its
  /// thread runs (`mosquitto_loop_start`).
  private struct Handle: @unchecked Sendable {
    let pointer: OpaquePointer
  }

  /// What the C callbacks reach through libmosquitto's user-data pointer.
  private final class Callbacks: Sendable {
    let handler: Handler
    let maximumPayloadBytes: Int
    /// Publications that finished while someone waits for one (``publish(_:to:quality:retained:timeout:)``).
    let completions = Mutex(Completions())

    struct Completions {
      /// One semaphore per waiting thread, signalled at each completion.
      var waiters: [ObjectIdentifier: DispatchSemaphore] = [:]
      var finished: Set<Int32> = []
    }

    init(handler: @escaping Handler, maximumPayloadBytes: Int) {
      self.handler = handler
      self.maximumPayloadBytes = maximumPayloadBytes
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

  /// A client, not yet connected.
  ///
  /// - Parameters:
  ///   - clientIdentifier: The broker's name for this client. With `cleanSession: false` the
  ///     broker keeps its subscriptions, and queues QoS 1 messages for it while it is away.
  ///   - cleanSession: `true` to start afresh on every connection and be forgotten when it ends.
  ///   - will: Published by the broker when the connection ends without ``disconnect()``
  ///     (the process died, the network failed).
  ///   - handler: Called on the client's network thread with every ``MQTTEvent``.
  public init(
    clientIdentifier: String, cleanSession: Bool, will: MQTTMessage? = nil,
    maximumPayloadBytes: Int = MQTTClient.defaultMaximumPayloadBytes, handler: @escaping Handler
  ) throws(MQTTError) {
    try Self.load()
    guard !clientIdentifier.utf8.contains(0), clientIdentifier.utf8.count <= 65535 else {
      throw .invalidArgument("a client identifier must have no NUL character and at most 65535 bytes")
    }
    self.clientIdentifier = clientIdentifier
    self.maximumPayloadBytes = maximumPayloadBytes
    callbacks = Callbacks(handler: handler, maximumPayloadBytes: maximumPayloadBytes)
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
    _ = cmosquitto_reconnect_delay_set(pointer, 1, 30, true)
    cmosquitto_connect_callback_set(pointer) { _, context, code in
      guard let callbacks = MQTTClient.callbacks(context) else { return }
      if code == 0 {
        callbacks.handler(.connected)
      } else {
        callbacks.handler(.refused(String(cString: cmosquitto_connack_string(code))))
      }
    }
    cmosquitto_disconnect_callback_set(pointer) { _, context, code in
      guard let callbacks = MQTTClient.callbacks(context) else { return }
      callbacks.handler(.disconnected(reason: code == 0 ? "disconnected" : MQTTClient.words(code)))
    }
    cmosquitto_publish_callback_set(pointer) { _, context, identifier in
      guard let callbacks = MQTTClient.callbacks(context) else { return }
      callbacks.completions.withLock {
        guard !$0.waiters.isEmpty else { return }
        $0.finished.insert(identifier)
        for waiter in $0.waiters.values { waiter.signal() }
      }
      callbacks.handler(.published(identifier))
    }
    cmosquitto_message_callback_set(pointer) { _, context, message in
      guard let callbacks = MQTTClient.callbacks(context), let message else { return }
      callbacks.handler(MQTTClient.event(for: message.pointee, limit: callbacks.maximumPayloadBytes))
    }
  }

  deinit {
    disconnect()
    cmosquitto_destroy(handle.pointer)
  }

  /// Connects (blocking until the connection is made or fails) and starts the network thread,
  /// which reports ``MQTTEvent/connected`` once the broker accepts. Called once.
  ///
  /// - Parameter keepAlive: Seconds between pings when idle; a broker that hears nothing for
  ///   one and a half times this publishes the Last Will.
  public func connect(to broker: BrokerAddress, keepAlive: Int = 10) throws(MQTTError) {
    guard !broker.host.utf8.contains(0) else { throw .invalidAddress(broker.description, reason: "a NUL") }
    try state.withLock { state throws(MQTTError) in
      guard !state.isLooping, !state.isClosed else {
        throw .invalidArgument("the client is already connected or was disconnected")
      }
      let code = cmosquitto_connect(handle.pointer, broker.host, Int32(broker.port), Int32(max(5, keepAlive)))
      guard code == CMOSQ_ERR_SUCCESS else { throw .connectionFailed(broker, reason: Self.words(code)) }
      let started = cmosquitto_loop_start(handle.pointer)
      guard started == CMOSQ_ERR_SUCCESS else {
        _ = cmosquitto_disconnect(handle.pointer)
        throw .connectionFailed(broker, reason: "no network thread: \(Self.words(started))")
      }
      state.isLooping = true
    }
  }

  /// Publishes `payload` on `topic`; returns its message identifier (``MQTTEvent/published(_:)``
  /// reports it when the broker has it). Queued, not blocking; fails when not connected.
  @discardableResult
  public func publish(
    _ payload: [UInt8], to topic: String, quality: MQTTQuality = .atMostOnce, retained: Bool = false
  ) throws(MQTTError) -> Int32 {
    guard payload.count <= maximumPayloadBytes else {
      throw .payloadTooLarge(bytes: payload.count, limit: maximumPayloadBytes)
    }
    guard !topic.utf8.contains(0) else { throw .invalidArgument("a topic must have no NUL character") }
    var identifier: Int32 = 0
    let code = payload.withUnsafeBytes {
      cmosquitto_publish(
        handle.pointer, &identifier, topic, Int32(payload.count), $0.baseAddress, quality.rawValue, retained)
    }
    guard code == CMOSQ_ERR_SUCCESS else {
      throw .operationFailed("publish on \(DisplayText.field(topic))", reason: Self.words(code))
    }
    return identifier
  }

  /// Publishes and waits until the broker has the message (QoS 1) or it was sent (QoS 0):
  /// `false` when `timeout` seconds passed first.
  public func publish(
    _ payload: [UInt8], to topic: String, quality: MQTTQuality, retained: Bool, timeout: Double
  ) throws(MQTTError) -> Bool {
    let wake = DispatchSemaphore(value: 0)
    let key = ObjectIdentifier(wake)
    callbacks.completions.withLock { $0.waiters[key] = wake }
    defer {
      callbacks.completions.withLock {
        $0.waiters[key] = nil
        if $0.waiters.isEmpty { $0.finished = [] }
      }
    }
    let identifier = try publish(payload, to: topic, quality: quality, retained: retained)
    let deadline = DispatchTime.now() + .milliseconds(Int(max(0, min(timeout, 3600)) * 1000))
    while true {
      if callbacks.completions.withLock({ $0.finished.remove(identifier) != nil }) { return true }
      if wake.wait(timeout: deadline) == .timedOut { return false }
    }
  }

  /// Subscribes to `filter` (`+` and `#` wildcards allowed) at `quality`: messages arrive as
  /// ``MQTTEvent/received(_:)``. In a persistent session the broker keeps the subscription.
  public func subscribe(_ filter: String, quality: MQTTQuality) throws(MQTTError) {
    guard !filter.utf8.contains(0) else {
      throw .invalidArgument("a topic filter must have no NUL character")
    }
    let code = cmosquitto_subscribe(handle.pointer, nil, filter, quality.rawValue)
    guard code == CMOSQ_ERR_SUCCESS else {
      throw .operationFailed("subscribe to \(DisplayText.field(filter))", reason: Self.words(code))
    }
  }

  /// Disconnects (no Last Will: the broker publishes it only for a connection that ends
  /// otherwise) and waits for the network thread to end: no event comes after this returns.
  /// Not to be called from the handler. Safe to call more than once.
  public func disconnect() {
    let wasLooping = state.withLock { state -> Bool in
      defer {
        state.isLooping = false
        state.isClosed = true
      }
      return state.isLooping
    }
    guard wasLooping else { return }
    _ = cmosquitto_disconnect(handle.pointer)
    _ = cmosquitto_loop_stop(handle.pointer, false)
  }

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

  private static func words(_ code: Int32) -> String {
    // libmosquitto's words for a system error are the system's, which errno still holds.
    if code == CMOSQ_ERR_ERRNO { return String(cString: strerror(errno)) }
    return String(cString: cmosquitto_strerror(code))
  }
}
