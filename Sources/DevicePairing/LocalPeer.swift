import DeviceSession
import Dispatch
import Glibc
import PeerSession
import Synchronization

/// One running peer on this machine: a ``PeerEngine`` over a link (the local ``LocalPeerLink``
/// by default, or ``MQTTPeerLink`` through a broker: any ``PeerEventWorkLink``), its received
/// resources in ``PeerFileStorage``, its traffic in a ``PeerJournal``, and its control socket,
/// through which other processes (the `peer` verbs, the dashboard) have it invite, answer,
/// send and send resources with the results and errors its own program would get.
///
/// Requests (``PeerControlMessage`` fields, see ``perform(_:)``) name other peers by a
/// selector: `NAME`, or `NAME#xxxx` (the id's last four hex digits) when several share a name.
public final class LocalPeer: Sendable {
  /// The events handler's type: every engine event, after it is given to the journal.
  public typealias EventHandler = @Sendable (PeerEvent) -> Void

  public let identity: PeerIdentity
  public let directory: PeerDirectory
  public let engine: PeerEngine
  public let journal: PeerJournal
  /// The link it runs over (``MQTTPeerLink`` counts what it refused from the broker).
  public let link: any PeerEventWorkLink
  /// In a struct: a `Mutex` of a function type itself re-wraps it in two reabstraction thunks
  /// at every `withLock` (its `inout`), so each event would run a longer chain than the last.
  private struct HandlerSlot { var handler: EventHandler? }
  private let handler = Mutex(HandlerSlot())
  private let observers = Mutex<[UInt64: @Sendable (PeerEvent) -> Void]>([:])
  private let nextObserver = Atomic<UInt64>(1)
  private let listener = Mutex<Int32>(-1)
  private let isStopping = Atomic<Bool>(false)
  /// The routes of the pushes and deep links sent to it (LocalPeer+Routes.swift).
  let routes = Mutex<DeviceRoutes?>(nil)
  /// The peers that went `notConnected` and are not connected again, with the reason, by id:
  /// the `left` lines of `status`.
  private let departures = Mutex<[UInt64: (peer: PeerIdentity, reason: PeerDisconnectReason?)]>([:])
  /// Whether a thread is handing events over (one at a time, so that they stay in order).
  private let isConsuming = Atomic<Bool>(false)

  /// A new peer `name` of `service` under `home` (a new identity); nothing runs before
  /// ``start(advertising:policy:browsing:)``.
  ///
  /// - Parameter makeLink: The link for the new identity; `nil` for the local link of `home`.
  ///   Its control socket, journal and received resources are under `home` whatever the link.
  public init(
    name: PeerName, service: ServiceType, home: String, receiveQueueLimit: Int = 256,
    link makeLink: ((PeerIdentity) throws(LinkError) -> any PeerEventWorkLink)? = nil
  ) throws(PeerError) {
    identity = PeerIdentity(name: name)
    directory = PeerDirectory(home: home, service: service)
    if let makeLink {
      do throws(LinkError) { link = try makeLink(identity) } catch { throw .linkUnavailable(error.reason) }
    } else {
      link = LocalPeerLink(local: identity, service: service, home: home)
    }
    do { journal = try PeerJournal(directory: directory.peerPath(identity.id), local: identity) } catch {
      throw .storage(error.description)
    }
    engine = PeerEngine(
      local: identity, service: service, link: link, timer: DispatchSessionTimer(),
      storage: PeerFileStorage(path: directory.resourcesPath(identity.id)),
      receiveQueueLimit: receiveQueueLimit)
  }

  /// Where this peer's events go (set it before starting to miss none).
  public func setEventHandler(_ handler: EventHandler?) { self.handler.withLock { $0.handler = handler } }

  /// Starts the link, serves the control socket, and advertises (with `info`, answering
  /// invitations by `policy`) and browses as asked.
  public func start(advertising info: DiscoveryInfo?, policy: InvitationPolicy, browsing: Bool)
    throws(PeerError)
  {
    // Events are taken from the engine's queue, not handed over by the engine as it makes them:
    // so a handler that falls behind (a slow terminal) holds up only itself, and the engine's
    // bounded queue drops unreliable messages and counts them, as the receiver falling behind
    // should. They are taken by the link's thread that read the frames they come from (no hop
    // to another thread), while the link's other thread reads on; see LocalPeerLink.setEventWork.
    // Observer 0 (requests count from 1) keeps the departures for `status`.
    observers.withLock {
      $0[0] = { [weak self] event in
        guard case .stateChanged(let peer, let state, let reason) = event else { return }
        self?.departures.withLock { $0[peer.id] = state == .notConnected ? (peer, reason) : nil }
      }
    }
    engine.setEventsNotifier { [link] in link.eventsWaiting() }
    link.setEventWork { [weak self] in self?.consume() }
    try engine.start()
    try serveControl()
    if let info { try engine.startAdvertising(info: info, policy: policy) }
    if browsing { try engine.startBrowsing() }
  }

  /// Leaves the session, stops the control socket and the link.
  public func stop() {
    guard !isStopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
    let descriptor = listener.withLock { $0 }
    if descriptor >= 0 { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
    _ = unlink(directory.controlSocketPath(identity.id))
    engine.stop()
    // The last events (the session's end) are handed over here, once the link's threads are
    // done, and journaled before this returns.
    consume()
    journal.flush()
  }

  /// The most events taken from the engine at once: one, as the handler takes them, so that
  /// what waits for a handler that fell behind stays within the engine's receive queue (taking
  /// the next costs a lock, not a wake-up).
  static let batchLimit = 1

  /// Hands every waiting event over, in batches, unless another thread is doing so (it takes
  /// these too).
  private func consume() {
    while !isConsuming.exchange(true, ordering: .acquiring) {
      while let events = engine.takeEvents(limit: Self.batchLimit), !events.isEmpty { deliver(events) }
      isConsuming.store(false, ordering: .releasing)
      // Events queued after the last take, while another thread found this one consuming.
      guard engine.hasWaitingEvents else { return }
    }
  }

  /// Gives `events` to the journal (which writes them within
  /// ``PeerJournal/gatheringMilliseconds``), then hands them to the handler and the waiting
  /// requests.
  func deliver(_ events: [PeerEvent]) {
    journal.observe(events)
    let handler = handler.withLock { $0.handler }
    for event in events {
      handler?(event)
      for observer in observers.withLock({ Array($0.values) }) { observer(event) }
    }
  }

  /// Returns once the records of the events handed over so far are written.
  public func flushJournal() { journal.flush() }

  /// Runs `start`, then waits up to `seconds` for the first event `match` makes a value of.
  private func waitFor<Value: Sendable>(
    seconds: Double, start: () throws(PeerError) -> Void, match: @escaping @Sendable (PeerEvent) -> Value?
  ) throws(PeerError) -> Value? {
    let found = Mutex<Value?>(nil)
    let signal = DispatchSemaphore(value: 0)
    let number = nextObserver.add(1, ordering: .relaxed).oldValue
    observers.withLock {
      $0[number] = { event in
        guard let value = match(event) else { return }
        let first = found.withLock { found -> Bool in
          guard found == nil else { return false }
          found = value
          return true
        }
        if first { signal.signal() }
      }
    }
    defer { _ = observers.withLock { $0.removeValue(forKey: number) } }
    try start()
    _ = signal.wait(timeout: .now() + .milliseconds(Int(min(seconds, 86_400) * 1000)))
    return found.withLock { $0 }
  }

  // MARK: Requests

  /// Answers one control request. Commands and their fields:
  ///
  /// - `invite TO CONTEXT TIMEOUT`: invites the found peer TO; answers once it is connected,
  ///   or with the reason it is not (declined, timed out).
  /// - `answer FROM accept|decline`: answers the pending invitation from FROM.
  /// - `send TO[,TO...] reliable|unreliable DATA`: sends to connected peers.
  /// - `send-resource TO PATH NAME`: sends the file at PATH; answers when it is finished,
  ///   cancelled or failed.
  /// - `push PAYLOAD`, `open-url URL`: routes a push or a deep link (LocalPeer+Routes.swift).
  /// - `disconnect`: leaves the session (`MCSession.disconnect()`); the others see it leave.
  /// - `cancel ID`: cancels the resource in flight `ID` (`SENDERHEX/NUMBER`, as `status`
  ///   names it), either direction; the other side sees it cancelled.
  /// - `status`: this peer, then one field a line for found, connected and invited peers
  ///   (`invited-by P<TAB>HEX`, the archived context in hex), the resources in flight
  ///   (`resource ID<TAB>sending|receiving<TAB>BYTES<TAB>TOTAL<TAB>PEER<TAB>NAMEHEX`) and the
  ///   peers that went away (`left P<TAB>REASON`).
  ///
  /// The answer is `ok TEXT`, or `error CODE MESSAGE` (2: a request that is wrong, such as an
  /// ambiguous name; 3: it failed, such as "not connected").
  public func perform(_ request: PeerControlMessage) -> PeerControlMessage {
    do throws(PeerControlFailure) {
      return PeerControlMessage(text: ["ok", try answer(request)])
    } catch {
      return PeerControlMessage(text: ["error", String(error.code), error.message])
    }
  }

  private func answer(_ request: PeerControlMessage) throws(PeerControlFailure) -> String {
    switch request.text(0) {
    case "invite":
      let peer = try Self.resolve(
        request.text(1), among: Array(engine.foundPeers.keys), missing: "has not been found")
      let timeout = Double(request.text(3)) ?? 30
      let context = request.fields.count > 2 ? request.fields[2] : []
      // Events reach the observers from the link's thread, after the request that made them
      // returned: a `notConnected` queued before this invitation (a `disconnect` just before) may
      // still come. The invitation's own outcome follows its `connecting`, so only that counts.
      let isConnecting = Atomic<Bool>(false)
      let outcome = try attempt { () throws(PeerError) in
        try waitFor(
          seconds: timeout + 5,
          start: { () throws(PeerError) in
            try engine.invite(peer, context: context, timeout: timeout)
          }
        ) { event -> PeerDisconnectReason?? in
          guard case .stateChanged(let who, let state, let reason) = event, who.id == peer.id else {
            return nil
          }
          switch state {
          case .connecting:
            isConnecting.store(true, ordering: .relaxed)
            return nil
          case .connected: return isConnecting.load(ordering: .relaxed) ? .some(nil) : nil
          case .notConnected: return isConnecting.load(ordering: .relaxed) ? .some(reason) : nil
          }
        }
      }
      switch outcome {
      case .some(nil): return "\(peer) connected"
      case .some(let reason?): throw PeerControlFailure(3, "\(peer) is not connected: \(reason)")
      case nil: throw PeerControlFailure(3, "no answer from \(peer)")
      }
    case "answer":
      let pending = engine.pendingInvitations
      let peer = try Self.resolve(
        request.text(1), among: pending.map(\.peer), missing: "has no invitation waiting for an answer")
      guard let invitation = pending.first(where: { $0.peer.id == peer.id }) else {
        throw PeerControlFailure(3, "\(peer) has no invitation waiting for an answer")
      }
      let accept = request.text(2) == "accept"
      try attempt { () throws(PeerError) in try engine.answer(invitation, accept: accept) }
      return "\(accept ? "accepted" : "declined") the invitation from \(peer)"
    case "send":
      guard let mode = PeerSendMode(rawValue: request.text(2)) else {
        throw PeerControlFailure(2, "the mode is reliable or unreliable")
      }
      let data = request.fields.count > 3 ? request.fields[3] : []
      // Found peers too, so that one found but not connected is refused by name and id.
      var known = engine.connectedPeers
      for peer in engine.foundPeers.keys where !known.contains(peer) { known.append(peer) }
      var targets: [PeerIdentity] = []
      for selector in request.text(1).split(separator: ",", omittingEmptySubsequences: false) {
        targets.append(try Self.resolve(String(selector), among: known, missing: nil))
      }
      do throws(PeerError) {
        try engine.send(data, to: targets, mode: mode)
      } catch {
        journal.sent(data.count, mode: mode, to: targets, error: error.description)
        throw PeerControlFailure(3, error.description)
      }
      journal.sent(data.count, mode: mode, to: targets)
      return
        "sent \(data.count) bytes \(mode.rawValue) to \(targets.map(\.description).joined(separator: ", "))"
    case "send-resource":
      let peer = try Self.resolve(request.text(1), among: engine.connectedPeers, missing: nil)
      let source = try attempt { () throws(PeerError) in try PeerFileSource(path: request.text(2)) }
      let name = request.text(3)
      let box = Mutex<PeerResourceID?>(nil)
      let outcome = try attempt { () throws(PeerError) in
        try waitFor(
          seconds: 86_400,
          start: { () throws(PeerError) in
            // Held while sending starts: an end that comes at once waits for the id here.
            try box.withLock { box throws(PeerError) in
              box = try engine.sendResource(named: name, to: peer, source: source)
            }
          }
        ) { event -> PeerResourceEvent? in
          guard case .resource(let change) = event else { return nil }
          switch change {
          case .finished(let progress, _), .cancelled(let progress, _), .failed(let progress, _):
            return progress.id == box.withLock({ $0 }) ? change : nil
          default: return nil
          }
        }
      }
      switch outcome {
      case .finished(let progress, _)?:
        return "sent \(progress.name.debugDescription) (\(progress.bytes) bytes) to \(peer)"
      case .cancelled(_, let byPeer)?:
        throw PeerControlFailure(3, "the resource was cancelled\(byPeer ? " by \(peer)" : "")")
      case .failed(_, let reason)?: throw PeerControlFailure(3, "the resource failed: \(reason)")
      default: throw PeerControlFailure(3, "the resource did not finish")
      }
    case "push": return try answerPush(request)
    case "open-url": return try answerOpenURL(request)
    case "status":
      var lines = ["peer \(identity)"]
      for (peer, _) in engine.foundPeers.sorted(by: { $0.key < $1.key }) { lines.append("found \(peer)") }
      for peer in engine.connectedPeers { lines.append("connected \(peer)") }
      for invitation in engine.pendingInvitations {
        lines.append("invited-by \(invitation.peer)\t" + Self.hex(invitation.context))
      }
      for resource in engine.resources {
        lines.append(
          "resource \(resource.id)\t\(resource.direction.rawValue)\t\(resource.bytes)\t\(resource.total)\t"
            + "\(resource.peer)\t" + Self.hex(Array(resource.name.utf8)))
      }
      let connected = Set(engine.connectedPeers.map(\.id))
      let left = departures.withLock { Array($0.values) }.filter { !connected.contains($0.peer.id) }
      for (peer, reason) in left.sorted(by: { $0.peer < $1.peer }) {
        lines.append("left \(peer)\t" + (reason.map(String.init(describing:)) ?? "not connected"))
      }
      return lines.joined(separator: "\n")
    case "disconnect":
      let peers = engine.connectedPeers
      engine.disconnect()
      // Recorded here as well as by observer 0 when the events are taken: so a `status` right
      // after this answer (`peer disconnect`, then `peer list`) already shows the departures.
      departures.withLock { departures in
        for peer in peers { departures[peer.id] = (peer, .disconnected) }
      }
      return peers.isEmpty
        ? "left the session (no peer was connected)"
        : "left the session; \(peers.map(\.description).joined(separator: ", ")) see it leave"
    case "cancel":
      let text = request.text(1)
      let resources = engine.resources
      guard let resource = resources.first(where: { $0.id.description == text }) else {
        let shown =
          resources.isEmpty ? "none is" : resources.map(\.id.description).joined(separator: ", ") + " are"
        throw PeerControlFailure(3, "no resource \(PairDisplay.field(text)) in flight (\(shown))")
      }
      try attempt { () throws(PeerError) in try engine.cancelResource(resource.id) }
      return
        "cancelled resource \(resource.id) \(PairDisplay.field(resource.name)) "
        + (resource.direction == .sending ? "to" : "from") + " \(resource.peer)"
    default:
      throw PeerControlFailure(2, "unknown request \(request.text(0).debugDescription)")
    }
  }

  /// `bytes` as lowercase hex digits.
  static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  private func attempt<Value>(_ body: () throws(PeerError) -> Value) throws(PeerControlFailure) -> Value {
    do { return try body() } catch {
      switch error {
      case .sessionFull, .notConnected, .notFound, .alreadyConnected, .alreadyConnecting,
        .invitationNotPending,
        .resourceNotFound, .storage, .linkUnavailable, .stopped, .notStarted:
        throw PeerControlFailure(3, error.description)
      case .payloadTooLarge, .noPeers:
        throw PeerControlFailure(2, error.description)
      }
    }
  }

  /// The one peer of `peers` that `selector` names (`NAME` or `NAME#xxxx`). None: `missing`
  /// says why (`nil`: "not connected", exit 3); several: ambiguous, with their ids (exit 2).
  static func resolve(_ selector: String, among peers: [PeerIdentity], missing: String?)
    throws(PeerControlFailure) -> PeerIdentity
  {
    let matches = PeerSelector.matches(selector, among: peers)
    if matches.count == 1 { return matches[0] }
    let shown = PairDisplay.field(selector)
    if matches.isEmpty {
      throw PeerControlFailure(
        3, missing.map { "peer \(shown) \($0)" } ?? "not connected: \(shown); invite them first")
    }
    throw PeerControlFailure(
      2,
      "the name \(shown) is ambiguous: \(matches.map(\.description).joined(separator: ", ")); "
        + "pick one as NAME#xxxx")
  }

  // MARK: The control socket

  private func serveControl() throws(PeerError) {
    let path = directory.controlSocketPath(identity.id)
    func failure() -> PeerError {
      .linkUnavailable(
        "cannot serve the control socket \(PairDisplay.path(path)): \(String(cString: strerror(errno)))")
    }
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw failure() }
    _ = unlink(path)
    guard LocalSocket.withAddress(path, { bind(descriptor, $0, $1) }) == 0, chmod(path, 0o600) == 0,
      listen(descriptor, 16) == 0
    else {
      let error = failure()
      _ = close(descriptor)
      throw error
    }
    listener.withLock { $0 = descriptor }
    guard SystemThread.detach({ [self] in acceptConnections(descriptor) }) else {
      _ = close(descriptor)
      throw failure()
    }
  }

  private func acceptConnections(_ descriptor: Int32) {
    while true {
      let connection = accept(descriptor, nil, nil)
      if connection < 0 {
        if !isStopping.load(ordering: .acquiring) && (errno == EINTR || errno == ECONNABORTED) { continue }
        _ = close(descriptor)
        return
      }
      _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
      let started = SystemThread.detach { [self] in
        defer { _ = close(connection) }
        DeviceControlChannel.setTimeout(connection, seconds: 10)
        guard let request = PeerControlChannel.read(connection) else { return }
        // The answer may take long (an invitation's timeout, a resource): no send timeout then.
        DeviceControlChannel.setTimeout(connection, seconds: 1e6)
        _ = DeviceControlChannel.writeAll(connection, perform(request).encoded)
      }
      if !started { _ = close(connection) }
    }
  }
}
