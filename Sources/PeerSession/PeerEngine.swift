import DeviceSession
import Synchronization

/// One peer's Multipeer Connectivity session over a ``PeerLink``: an advertiser, a browser and a
/// session with peers and states, in one engine that does no I/O of its own.
///
/// - **Discovery**: ``startBrowsing()`` reports advertisers of the same service type as
///   `found` (with their discovery info) and `lost` (stopped advertising, or hung up).
/// - **Invitations**: ``invite(_:context:timeout:)`` a found peer with an archived context; the
///   invitee answers by its ``InvitationPolicy`` (or, with `ask`, ``answer(_:accept:)``). Both
///   go `notConnected → connecting → connected`, or back to `notConnected` with the reason.
/// - **The mesh**: peers joined through a common peer are one session. Membership spreads by
///   `members` frames: a peer that learns of new members tells its other neighbours, so every
///   member knows every other, and the peer it reaches it through. The invitation links form a
///   tree (a member cannot be invited again), so each member has one route and frames to it
///   keep their order. A neighbour that goes away takes the members reached through it along
///   (`departures` spread the same way). At most ``maximumPeers`` peers, this one included.
/// - **Data** (``send(_:to:mode:)``): `reliable` in order, none lost; `unreliable` dropped
///   (and counted) when the handler falls behind.
/// - **Resources** (``sendResource(named:to:source:)``): chunks under a window the receiver's
///   acknowledgements open, progress on both sides, cancel from either side, failure when
///   the other side goes away. Bytes come from a ``PeerResourceSource`` and go to the injected
///   ``PeerResourceStorage``.
///
/// Safe to use from any thread; the handler is called one event at a time, in order.
public final class PeerEngine: Sendable {
  /// The most peers a session holds, this one included (`kMCSessionMaximumNumberOfPeers`).
  public static let maximumPeers = 8

  /// The handler's type.
  public typealias EventHandler = @Sendable (PeerEvent) -> Void

  /// This peer.
  public let local: PeerIdentity
  /// The service it advertises and browses.
  public let service: ServiceType
  private let link: any PeerLink
  private let timer: any SessionTimer
  private let storage: any PeerResourceStorage
  private let receiveQueueLimit: Int
  private let chunkBytes: Int
  private let windowChunks: Int
  private let maximumDataBytes: Int
  private let state = Mutex(State())
  private let deliveries: Mutex<DeliveryQueue>
  /// Held by ``send(_:to:mode:)`` from numbering its frames until they are written, so that
  /// they reach the link in order without the state locked meanwhile.
  private let sending = Mutex(())

  private struct Member {
    var identity: PeerIdentity
    /// The neighbour's id through which it is reached; its own id when it is a neighbour.
    var route: UInt64
    var isNeighbour: Bool { route == identity.id }
  }

  private struct OutgoingInvitation {
    var id: UInt64
    var peer: PeerIdentity
  }

  private struct Outgoing {
    var progress: PeerResourceProgress
    var source: any PeerResourceSource
    var sent: UInt64
  }

  private struct State {
    var isStarted = false
    var isStopped = false
    var advertisement: PeerAdvertisement?
    var policy = InvitationPolicy.never
    var isBrowsing = false
    var found: [UInt64: (PeerIdentity, DiscoveryInfo)] = [:]
    var members: [UInt64: Member] = [:]
    var invitationsOut: [UInt64: OutgoingInvitation] = [:]
    var invitationsIn: [UInt64: PeerInvitation] = [:]
    var nextInvitation: UInt64 = 1
    var nextSequence: [UInt64: UInt64] = [:]
    var lastReceived: [UInt64: UInt64] = [:]
    var nextResource: UInt64 = 1
    var outgoing: [PeerResourceID: Outgoing] = [:]
    var incoming: [PeerResourceID: PeerResourceProgress] = [:]
    var drops: [UInt64: Int] = [:]

    var sessionSize: Int { 1 + members.count }
  }

  private enum Item {
    case event(PeerEvent)
    case unreliable([UInt8], from: PeerIdentity)
    case dropReport(PeerIdentity)
  }

  private struct DeliveryQueue {
    var handler: EventHandler?
    var queue: [Item] = []
    /// The first item not yet taken (the stream takes one at a time).
    var head = 0
    var isDraining = false
    var queuedUnreliable = 0
    var unreported: [UInt64: Int] = [:]
    var totalDrops = 0
    /// Iterators of ``PeerEngine/events`` waiting for an event, by their number.
    var waiters: [(UInt64, CheckedContinuation<PeerEvent?, Never>)] = []
    var nextWaiter: UInt64 = 1
    var isFinished = false
    /// What tells a consumer with a thread of its own that events wait (see
    /// ``PeerEngine/setEventsNotifier(_:)``), and whether it was told since it last found none.
    var notifier: (@Sendable () -> Void)?
    var isNotified = false

    var isEmpty: Bool { head == queue.count }

    /// Takes the first waiting item as the event it becomes.
    mutating func takeFirst() -> PeerEvent? {
      guard !isEmpty else { return nil }
      let item = queue[head]
      head += 1
      if head == queue.count {
        queue.removeAll(keepingCapacity: true)
        head = 0
      } else if head > 4096 && head * 2 > queue.count {
        queue.removeSubrange(0..<head)
        head = 0
      }
      switch item {
      case .event(let event): return event
      case .unreliable(let bytes, let peer):
        queuedUnreliable -= 1
        return .data(bytes, from: peer, mode: .unreliable)
      case .dropReport(let peer):
        return .unreliableDropped(from: peer, count: unreported.removeValue(forKey: peer.id) ?? 0)
      }
    }
  }

  /// A peer `local` for `service` over `link`.
  ///
  /// - Parameters:
  ///   - timer: What calls the engine back when an invitation's timeout passes.
  ///   - storage: Where received resources go.
  ///   - receiveQueueLimit: How many unreliable messages may wait for the handler; more are
  ///     dropped and counted.
  ///   - chunkBytes: The size of a resource chunk; `windowChunks` of them may be unacknowledged.
  public init(
    local: PeerIdentity, service: ServiceType, link: any PeerLink, timer: any SessionTimer,
    storage: any PeerResourceStorage, receiveQueueLimit: Int = 256, chunkBytes: Int = 64 << 10,
    windowChunks: Int = 8, maximumDataBytes: Int = 16 << 20
  ) {
    self.local = local
    self.service = service
    self.link = link
    self.timer = timer
    self.storage = storage
    self.receiveQueueLimit = max(1, receiveQueueLimit)
    self.chunkBytes = max(1, chunkBytes)
    self.windowChunks = max(1, windowChunks)
    self.maximumDataBytes = maximumDataBytes
    deliveries = Mutex(DeliveryQueue())
  }

  // MARK: State

  /// The connected peers (`MCSession.connectedPeers`), in name order.
  public var connectedPeers: [PeerIdentity] { state.withLock { $0.members.values.map(\.identity).sorted() } }
  /// The peers found by browsing and not lost since, with their discovery info.
  public var foundPeers: [PeerIdentity: DiscoveryInfo] {
    state.withLock { Dictionary(uniqueKeysWithValues: $0.found.values.map { ($0.0, $0.1) }) }
  }
  /// Invitations waiting for ``answer(_:accept:)``.
  public var pendingInvitations: [PeerInvitation] {
    state.withLock { $0.invitationsIn.values.sorted { $0.peer < $1.peer } }
  }
  /// Resource transfers in progress, both directions.
  public var resources: [PeerResourceProgress] {
    state.withLock { state in
      (state.outgoing.values.map(\.progress) + state.incoming.values).sorted {
        ($0.id.sender, $0.id.number) < ($1.id.sender, $1.id.number)
      }
    }
  }
  /// Unreliable messages dropped so far because the handler fell behind.
  public var unreliableDrops: Int { deliveries.withLock { $0.totalDrops } }

  /// The state of `peer` in this session.
  public func state(of peer: PeerIdentity) -> PeerConnectionState {
    state.withLock { state in
      if state.members[peer.id] != nil { return .connected }
      if state.invitationsOut[peer.id] != nil || state.invitationsIn[peer.id] != nil { return .connecting }
      return .notConnected
    }
  }

  /// The peer through which `peer` is reached (itself when it is a neighbour), `nil` when not connected.
  public func route(to peer: PeerIdentity) -> PeerIdentity? {
    state.withLock { state in state.members[peer.id].flatMap { state.members[$0.route]?.identity } }
  }

  // MARK: Lifecycle

  /// Sets the handler and hands it every event that waited for one; `nil` makes events wait.
  public func setEventHandler(_ handler: EventHandler?) {
    deliveries.withLock { $0.handler = handler }
    drain()
  }

  /// Starts the link. Later calls do nothing; after ``stop()`` it throws ``PeerError/stopped``
  /// (a new run is a new engine, with a new identity).
  public func start() throws(PeerError) {
    let isNew = try state.withLock { state throws(PeerError) -> Bool in
      guard !state.isStopped else { throw .stopped }
      defer { state.isStarted = true }
      return !state.isStarted
    }
    guard isNew else { return }
    do {
      try link.start { [weak self] event in self?.handle(event) }
    } catch {
      state.withLock { $0.isStarted = false }
      throw .linkUnavailable(error.reason)
    }
  }

  /// Leaves the session, stops advertising and browsing, and stops the link.
  public func stop() {
    disconnect()
    stopAdvertising()
    stopBrowsing()
    link.stop()
    state.withLock { state in
      state.isStarted = false
      state.isStopped = true
    }
    deliveries.withLock { $0.isFinished = true }
    drain()
  }

  // MARK: Advertising and browsing

  /// Advertises this peer with `info`; invitations are answered by `policy`.
  public func startAdvertising(info: DiscoveryInfo = DiscoveryInfo(), policy: InvitationPolicy)
    throws(PeerError)
  {
    let advertisement = PeerAdvertisement(peer: local, service: service, info: info)
    try state.withLock { state throws(PeerError) in
      guard state.isStarted else { throw .notStarted }
      state.advertisement = advertisement
      state.policy = policy
    }
    link.advertise(advertisement)
  }

  /// Stops advertising: browsers see this peer lost. Pending invitations stay pending.
  public func stopAdvertising() {
    let was = state.withLock { state -> Bool in
      defer { state.advertisement = nil }
      return state.advertisement != nil
    }
    if was { link.advertise(nil) }
  }

  /// Starts reporting advertisers of ``service``: `found`, then `lost`.
  public func startBrowsing() throws(PeerError) {
    try state.withLock { state throws(PeerError) in
      guard state.isStarted else { throw .notStarted }
      state.isBrowsing = true
    }
    link.browse(service)
  }

  /// Stops browsing; the found peers are forgotten without `lost` events (as MC does).
  public func stopBrowsing() {
    let was = state.withLock { state -> Bool in
      defer {
        state.isBrowsing = false
        state.found = [:]
      }
      return state.isBrowsing
    }
    if was { link.browse(nil) }
  }

  // MARK: Invitations

  /// Invites a found `peer` into this session with an archived `context`; if no answer comes
  /// within `timeout` seconds, it goes back to `notConnected` (timed out).
  ///
  /// - Returns: The invitation's id.
  @discardableResult
  public func invite(_ peer: PeerIdentity, context: [UInt8] = [], timeout: Double = 30) throws(PeerError)
    -> UInt64
  {
    guard context.count <= maximumDataBytes else {
      throw .payloadTooLarge(bytes: context.count, limit: maximumDataBytes)
    }
    let id = try state.withLock { state throws(PeerError) -> UInt64 in
      guard state.isStarted else { throw .notStarted }
      guard state.found[peer.id] != nil else { throw .notFound(peer) }
      guard state.members[peer.id] == nil else { throw .alreadyConnected(peer) }
      guard state.invitationsOut[peer.id] == nil, state.invitationsIn[peer.id] == nil else {
        throw .alreadyConnecting(peer)
      }
      guard state.sessionSize < Self.maximumPeers else { throw .sessionFull(limit: Self.maximumPeers) }
      let id = state.nextInvitation
      state.nextInvitation += 1
      let frame = PeerFrame(
        kind: .invitation, source: local, sequence: id, value: UInt64(state.sessionSize), payload: context)
      guard link.send(frame, to: peer) else { throw .notConnected([peer]) }
      state.invitationsOut[peer.id] = OutgoingInvitation(id: id, peer: peer)
      enqueue([.event(.stateChanged(peer, .connecting, reason: nil))])
      return id
    }
    drain()
    timer.schedule(after: max(0, timeout)) { [weak self] in self?.expire(invitation: id, peer: peer) }
    return id
  }

  private func expire(invitation id: UInt64, peer: PeerIdentity) {
    state.withLock { state in
      guard state.invitationsOut[peer.id]?.id == id else { return }
      state.invitationsOut[peer.id] = nil
      _ = link.send(PeerFrame(kind: .withdrawal, source: local, sequence: id), to: peer)
      enqueue([.event(.stateChanged(peer, .notConnected, reason: .timedOut))])
    }
    drain()
  }

  /// Answers an invitation that waits (the `ask` policy): accepting joins the inviter's session.
  /// An acceptance that would make the two sessions more than ``maximumPeers`` together is sent
  /// as a decline with `sessionFull` instead, and the inviter goes `notConnected` with that reason.
  public func answer(_ invitation: PeerInvitation, accept: Bool) throws(PeerError) {
    try state.withLock { state throws(PeerError) in
      guard let pending = state.invitationsIn[invitation.peer.id], pending.id == invitation.id else {
        throw .invitationNotPending(invitation.peer, id: invitation.id)
      }
      enqueue(answer(pending, accept: accept, in: &state))
    }
    drain()
  }

  private func answer(_ invitation: PeerInvitation, accept: Bool, in state: inout State) -> [Item] {
    let peer = invitation.peer
    state.invitationsIn[peer.id] = nil
    let full = state.sessionSize + invitation.sessionSize > Self.maximumPeers
    guard accept, !full else {
      let frame = PeerFrame(
        kind: .answer, flags: accept ? .sessionFull : [], source: local, sequence: invitation.id,
        value: UInt64(state.sessionSize))
      _ = link.send(frame, to: peer)
      return [.event(.stateChanged(peer, .notConnected, reason: accept ? .sessionFull : .declined))]
    }
    let frame = PeerFrame(
      kind: .answer, flags: .accepted, source: local, sequence: invitation.id,
      value: UInt64(state.sessionSize))
    guard link.send(frame, to: peer) else {
      return [.event(.stateChanged(peer, .notConnected, reason: .hungUp))]
    }
    return join(peer, in: &state)
  }

  /// `peer` becomes a neighbour: tell it this session's members, and the others about it.
  private func join(_ peer: PeerIdentity, in state: inout State) -> [Item] {
    state.members[peer.id] = Member(identity: peer, route: peer.id)
    resetSequences(peer.id, in: &state)
    _ = link.send(membersFrame(state), to: peer)
    spread(membersFrame(state), except: peer.id, in: state)
    return [.event(.stateChanged(peer, .connected, reason: nil))]
  }

  private func membersFrame(_ state: State) -> PeerFrame {
    let identities = [local] + state.members.values.map(\.identity).sorted()
    return PeerFrame(kind: .members, source: local, payload: PeerFrameCodec.encodeIdentities(identities))
  }

  /// Sends `frame` to every neighbour but `except`.
  private func spread(_ frame: PeerFrame, except: UInt64, in state: State) {
    for member in state.members.values where member.isNeighbour && member.identity.id != except {
      _ = link.send(frame, to: member.identity)
    }
  }

  private func resetSequences(_ id: UInt64, in state: inout State) {
    state.nextSequence[id] = nil
    state.lastReceived[id] = nil
  }

  // MARK: Leaving

  /// Leaves the session (`MCSession.disconnect()`): the others see this peer leave, and every
  /// peer here goes `notConnected`; invitations waiting on either side are given up.
  public func disconnect() {
    state.withLock { state in
      var items: [Item] = []
      for member in state.members.values where member.isNeighbour {
        _ = link.send(PeerFrame(kind: .leave, source: local), to: member.identity)
      }
      for invitation in state.invitationsOut.values.sorted(by: { $0.peer < $1.peer }) {
        _ = link.send(
          PeerFrame(kind: .withdrawal, source: local, sequence: invitation.id), to: invitation.peer)
        items.append(.event(.stateChanged(invitation.peer, .notConnected, reason: .disconnected)))
      }
      for invitation in state.invitationsIn.values.sorted(by: { $0.peer < $1.peer }) {
        _ = link.send(
          PeerFrame(kind: .answer, source: local, sequence: invitation.id, value: UInt64(state.sessionSize)),
          to: invitation.peer)
        items.append(.event(.stateChanged(invitation.peer, .notConnected, reason: .disconnected)))
      }
      state.invitationsOut = [:]
      state.invitationsIn = [:]
      let gone = state.members.values.map(\.identity).sorted()
      enqueue(items + remove(gone.map(\.id), reason: .disconnected, in: &state, spreading: false))
    }
    drain()
  }

  /// Removes members; fails their resources; tells the other neighbours unless `spreading` is false.
  private func remove(
    _ ids: [UInt64], reason: PeerDisconnectReason, except: UInt64 = 0, in state: inout State,
    spreading: Bool = true
  ) -> [Item] {
    var items: [Item] = []
    var gone: [PeerIdentity] = []
    for id in ids {
      guard let member = state.members.removeValue(forKey: id) else { continue }
      gone.append(member.identity)
      resetSequences(id, in: &state)
      items.append(.event(.stateChanged(member.identity, .notConnected, reason: reason)))
      items += failResources(with: member.identity, in: &state)
    }
    if spreading && !gone.isEmpty {
      let frame = PeerFrame(
        kind: .departures, source: local, value: UInt64(reason.rawValue),
        payload: PeerFrameCodec.encodeIdentities(gone))
      spread(frame, except: except, in: state)
    }
    return items
  }

  /// A neighbour went away (`reason`): it and the members reached through it leave.
  private func lose(neighbour id: UInt64, reason: PeerDisconnectReason, in state: inout State) -> [Item] {
    guard state.members[id]?.isNeighbour == true else { return [] }
    let behind = state.members.values.filter { $0.route == id && $0.identity.id != id }.map(\.identity)
      .sorted()
    let frames = remove([id], reason: reason, except: id, in: &state)
    return frames + remove(behind.map(\.id), reason: .separated, except: id, in: &state)
  }

  // MARK: Data

  /// Sends `data` to each of `peers`. Every one must be connected; otherwise nothing is sent
  /// and the error names those that are not.
  public func send(_ data: [UInt8], to peers: [PeerIdentity], mode: PeerSendMode) throws(PeerError) {
    guard !peers.isEmpty else { throw .noPeers }
    guard data.count <= maximumDataBytes else {
      throw .payloadTooLarge(bytes: data.count, limit: maximumDataBytes)
    }
    // The frames are numbered with the state locked and written after it, in the order they
    // were numbered (one sender at a time): a link thread that handles the echo meanwhile must
    // not wait for a sender that the echo's own wake-up pre-empted while it held the state.
    try sending.withLock { _ throws(PeerError) in
      let frames = try state.withLock {
        state throws(PeerError) -> [(PeerFrame, PeerIdentity, hop: PeerIdentity?)] in
        guard state.isStarted else { throw .notStarted }
        let missing = peers.filter { state.members[$0.id] == nil }
        guard missing.isEmpty else { throw .notConnected(missing) }
        return peers.map { peer in
          var frame = PeerFrame(
            kind: .data, flags: mode == .reliable ? .reliable : [], source: local, destination: peer.id,
            payload: data)
          if mode == .reliable {
            let sequence = (state.nextSequence[peer.id] ?? 0) + 1
            state.nextSequence[peer.id] = sequence
            frame.sequence = sequence
          }
          return (frame, peer, state.members[peer.id].flatMap { state.members[$0.route]?.identity })
        }
      }
      var failed: [PeerFrame] = []
      var failedPeers: [PeerIdentity] = []
      for (frame, peer, hop) in frames {
        let sent = hop.map { link.send(frame, to: $0) } ?? false
        if !sent && mode == .reliable {
          failed.append(frame)
          failedPeers.append(peer)
        }
      }
      guard !failed.isEmpty else { return }
      // Nothing went: the numbers are given back (no sender numbered since: one at a time), or
      // the receiver would take the next frame for a gap; newest first, so that a peer named
      // twice gets both back.
      state.withLock { state in
        for frame in failed.reversed() where state.nextSequence[frame.destination] == frame.sequence {
          state.nextSequence[frame.destination] = frame.sequence - 1
        }
      }
      throw .notConnected(failedPeers)
    }
  }

  /// Sends `frame` along the route to `id`.
  private func forward(_ frame: PeerFrame, to id: UInt64, in state: State) -> Bool {
    guard let member = state.members[id], let hop = state.members[member.route] else { return false }
    return link.send(frame, to: hop.identity)
  }

  // MARK: Resources

  /// Starts sending the bytes of `source` to `peer`, named `name`; progress, completion, cancel
  /// and failure arrive as ``PeerEvent/resource(_:)`` events.
  @discardableResult
  public func sendResource(named name: String, to peer: PeerIdentity, source: any PeerResourceSource)
    throws(PeerError) -> PeerResourceID
  {
    guard name.utf8.count <= PeerFrameCodec.maximumTextBytes, !name.isEmpty else {
      throw .storage("a resource name has 1 to \(PeerFrameCodec.maximumTextBytes) bytes")
    }
    let id = try state.withLock { state throws(PeerError) -> PeerResourceID in
      guard state.isStarted else { throw .notStarted }
      guard state.members[peer.id] != nil else { throw .notConnected([peer]) }
      let id = PeerResourceID(sender: local.id, number: state.nextResource)
      state.nextResource += 1
      let progress = PeerResourceProgress(
        id: id, name: name, peer: peer, direction: .sending, bytes: 0, total: source.size)
      let start = PeerFrame(
        kind: .resourceStart, source: local, destination: peer.id, sequence: id.number, value: source.size,
        text: name)
      guard forward(start, to: peer.id, in: state) else { throw .notConnected([peer]) }
      state.outgoing[id] = Outgoing(progress: progress, source: source, sent: 0)
      enqueue([.event(.resource(.started(progress)))] + pump(id, in: &state))
      return id
    }
    drain()
    return id
  }

  /// Sends chunks of `id` while the window has room.
  private func pump(_ id: PeerResourceID, in state: inout State) -> [Item] {
    guard var outgoing = state.outgoing[id] else { return [] }
    let window = UInt64(chunkBytes) * UInt64(windowChunks)
    while outgoing.sent < outgoing.progress.total && outgoing.sent - outgoing.progress.bytes < window {
      let count = Int(min(UInt64(chunkBytes), outgoing.progress.total - outgoing.sent))
      let bytes: [UInt8]
      do throws(PeerError) { bytes = try outgoing.source.read(offset: outgoing.sent, count: count) } catch {
        return abandon(id, reason: error.description, in: &state)
      }
      guard !bytes.isEmpty, bytes.count <= count else {
        return abandon(
          id, reason: "the source ended at byte \(outgoing.sent) of \(outgoing.progress.total)", in: &state)
      }
      let frame = PeerFrame(
        kind: .resourceChunk, source: local, destination: outgoing.progress.peer.id, sequence: id.number,
        value: outgoing.sent, payload: bytes)
      guard forward(frame, to: outgoing.progress.peer.id, in: state) else { break }
      outgoing.sent += UInt64(bytes.count)
    }
    state.outgoing[id] = outgoing
    return []
  }

  /// Gives up an outgoing resource whose bytes cannot be read: the receiver hears it cancelled.
  private func abandon(_ id: PeerResourceID, reason: String, in state: inout State) -> [Item] {
    guard let outgoing = state.outgoing.removeValue(forKey: id) else { return [] }
    let frame = PeerFrame(
      kind: .resourceCancel, source: local, destination: outgoing.progress.peer.id, sequence: id.number,
      value: id.sender)
    _ = forward(frame, to: outgoing.progress.peer.id, in: state)
    return [.event(.resource(.failed(outgoing.progress, reason: reason)))]
  }

  /// Cancels a resource transfer in progress, from either side: the other side hears it.
  public func cancelResource(_ id: PeerResourceID) throws(PeerError) {
    try state.withLock { state throws(PeerError) in
      let progress: PeerResourceProgress
      if let outgoing = state.outgoing.removeValue(forKey: id) {
        progress = outgoing.progress
      } else if let incoming = state.incoming.removeValue(forKey: id) {
        progress = incoming
        storage.discard(id)
      } else {
        throw .resourceNotFound(id)
      }
      let frame = PeerFrame(
        kind: .resourceCancel, source: local, destination: progress.peer.id, sequence: id.number,
        value: id.sender)
      _ = forward(frame, to: progress.peer.id, in: state)
      enqueue([.event(.resource(.cancelled(progress, byPeer: false)))])
    }
    drain()
  }

  /// Fails every transfer to or from `peer`, which went away.
  private func failResources(with peer: PeerIdentity, in state: inout State) -> [Item] {
    var items: [Item] = []
    for (id, outgoing) in state.outgoing where outgoing.progress.peer.id == peer.id {
      state.outgoing[id] = nil
      items.append(.event(.resource(.failed(outgoing.progress, reason: "the receiver \(peer) went away"))))
    }
    for (id, incoming) in state.incoming where incoming.peer.id == peer.id {
      state.incoming[id] = nil
      storage.discard(id)
      items.append(.event(.resource(.failed(incoming, reason: "the sender \(peer) went away"))))
    }
    return items
  }

  // MARK: Link events

  private func handle(_ event: PeerLinkEvent) {
    state.withLock { state in enqueue(handle(event, in: &state)) }
    drain()
  }

  private func handle(_ event: PeerLinkEvent, in state: inout State) -> [Item] {
    switch event {
    case .announced(let advertisement):
      guard state.isBrowsing, advertisement.service == service, advertisement.peer != local else {
        return []
      }
      let isNew = state.found[advertisement.peer.id] == nil
      state.found[advertisement.peer.id] = (advertisement.peer, advertisement.info)
      return isNew ? [.event(.found(advertisement.peer, info: advertisement.info))] : []
    case .withdrawn(let peer):
      return state.found.removeValue(forKey: peer.id) == nil ? [] : [.event(.lost(peer))]
    case .hungUp(let peer):
      var items: [Item] = state.found.removeValue(forKey: peer.id) == nil ? [] : [.event(.lost(peer))]
      let outgoing = state.invitationsOut.removeValue(forKey: peer.id)
      let incoming = state.invitationsIn.removeValue(forKey: peer.id)
      if outgoing != nil || incoming != nil {
        items.append(.event(.stateChanged(peer, .notConnected, reason: .hungUp)))
      }
      return items + lose(neighbour: peer.id, reason: .hungUp, in: &state)
    case .refused(let error, let from):
      return [.event(.refused("from \(from): \(error)"))]
    case .denied(let reason):
      return [.event(.refused("the link: \(reason)"))]
    case .received(let frame, let from):
      return receive(frame, from: from, in: &state)
    }
  }

  /// The kinds of frame a peer relays along the route to their maker (made once, not per frame).
  private static let relayable: Set<PeerFrame.Kind> = [
    .data, .resourceStart, .resourceChunk, .resourceAcknowledgement, .resourceCancel,
  ]

  private func receive(_ frame: PeerFrame, from neighbour: PeerIdentity, in state: inout State) -> [Item] {
    // A frame that is not relayed comes from its maker; a relayed one only along the route to
    // its maker, so no neighbour can speak for another peer.
    if frame.source.id != neighbour.id {
      guard Self.relayable.contains(frame.kind), state.members[frame.source.id]?.route == neighbour.id else {
        return [
          .event(.refused("a \(frame.kind) frame from \(neighbour) claims to come from \(frame.source)"))
        ]
      }
    }
    if frame.destination != 0 && frame.destination != local.id {
      // Relayed through this peer.
      guard forward(frame, to: frame.destination, in: state) else {
        return [.event(.refused("a \(frame.kind) frame from \(frame.source) for a peer not connected here"))]
      }
      return []
    }
    switch frame.kind {
    case .advertisement:
      return [.event(.refused("an advertisement came as a frame from \(neighbour)"))]
    case .invitation:
      return receiveInvitation(frame, in: &state)
    case .answer:
      return receiveAnswer(frame, in: &state)
    case .withdrawal:
      guard state.invitationsIn[frame.source.id]?.id == frame.sequence else { return [] }
      state.invitationsIn[frame.source.id] = nil
      return [.event(.stateChanged(frame.source, .notConnected, reason: .timedOut))]
    case .members:
      return receiveMembers(frame, from: neighbour, in: &state)
    case .departures:
      return receiveDepartures(frame, from: neighbour, in: &state)
    case .leave:
      return lose(neighbour: neighbour.id, reason: .left, in: &state)
    case .data:
      return receiveData(frame, in: &state)
    case .resourceStart, .resourceChunk, .resourceAcknowledgement, .resourceCancel:
      return receiveResource(frame, in: &state)
    }
  }

  private func receiveInvitation(_ frame: PeerFrame, in state: inout State) -> [Item] {
    let peer = frame.source
    let invitation = PeerInvitation(
      id: frame.sequence, peer: peer, context: frame.payload, sessionSize: Int(min(frame.value, 1 << 16)))
    guard state.advertisement != nil, state.members[peer.id] == nil, state.invitationsIn[peer.id] == nil,
      state.invitationsOut[peer.id] == nil
    else {
      _ = link.send(
        PeerFrame(kind: .answer, source: local, sequence: frame.sequence, value: UInt64(state.sessionSize)),
        to: peer)
      return [
        .event(.refused("an invitation from \(peer) was declined: not advertising, or already connecting"))
      ]
    }
    state.invitationsIn[peer.id] = invitation
    let items: [Item] = [
      .event(.stateChanged(peer, .connecting, reason: nil)),
      .event(.invitation(invitation, policy: state.policy)),
    ]
    switch state.policy {
    case .ask: return items
    case .always: return items + answer(invitation, accept: true, in: &state)
    case .never: return items + answer(invitation, accept: false, in: &state)
    }
  }

  private func receiveAnswer(_ frame: PeerFrame, in state: inout State) -> [Item] {
    let peer = frame.source
    guard state.invitationsOut[peer.id]?.id == frame.sequence else {
      // A late acceptance (the invitation timed out): the invitee joined alone, so it is told to leave.
      if frame.flags.contains(.accepted) { _ = link.send(PeerFrame(kind: .leave, source: local), to: peer) }
      return []
    }
    state.invitationsOut[peer.id] = nil
    let theirs = Int(min(frame.value, 1 << 16))
    guard frame.flags.contains(.accepted) else {
      let reason = frame.flags.contains(.sessionFull) ? PeerDisconnectReason.sessionFull : .declined
      return [.event(.stateChanged(peer, .notConnected, reason: reason))]
    }
    guard state.sessionSize + theirs <= Self.maximumPeers else {
      _ = link.send(PeerFrame(kind: .leave, source: local), to: peer)
      return [.event(.stateChanged(peer, .notConnected, reason: .sessionFull))]
    }
    return join(peer, in: &state)
  }

  private func receiveMembers(_ frame: PeerFrame, from neighbour: PeerIdentity, in state: inout State)
    -> [Item]
  {
    guard state.members[neighbour.id]?.isNeighbour == true else {
      return [.event(.refused("a members frame from \(neighbour), which is not a neighbour"))]
    }
    let identities: [PeerIdentity]
    do throws(PeerFrameError) { identities = try PeerFrameCodec.decodeIdentities(frame.payload) } catch {
      return [.event(.refused("members from \(neighbour): \(error)"))]
    }
    var items: [Item] = []
    var grew = false
    for identity in identities where identity.id != local.id && state.members[identity.id] == nil {
      guard state.sessionSize < Self.maximumPeers else {
        items.append(.event(.refused("\(identity) would be peer \(Self.maximumPeers + 1) of the session")))
        continue
      }
      state.members[identity.id] = Member(identity: identity, route: neighbour.id)
      // Invited meanwhile through another way: the mesh already joins it.
      state.invitationsOut[identity.id] = nil
      state.invitationsIn[identity.id] = nil
      items.append(.event(.stateChanged(identity, .connected, reason: nil)))
      grew = true
    }
    if grew { spread(membersFrame(state), except: neighbour.id, in: state) }
    return items
  }

  private func receiveDepartures(_ frame: PeerFrame, from neighbour: PeerIdentity, in state: inout State)
    -> [Item]
  {
    let identities: [PeerIdentity]
    do throws(PeerFrameError) { identities = try PeerFrameCodec.decodeIdentities(frame.payload) } catch {
      return [.event(.refused("departures from \(neighbour): \(error)"))]
    }
    let reason = PeerDisconnectReason(rawValue: UInt8(truncatingIfNeeded: frame.value)) ?? .left
    let routed = identities.filter { state.members[$0.id]?.route == neighbour.id && $0.id != neighbour.id }
    return remove(routed.map(\.id), reason: reason, except: neighbour.id, in: &state)
  }

  private func receiveData(_ frame: PeerFrame, in state: inout State) -> [Item] {
    let peer = frame.source
    guard state.members[peer.id] != nil else {
      return [.event(.refused("data from \(peer), which is not connected"))]
    }
    guard frame.flags.contains(.reliable) else { return [.unreliable(frame.payload, from: peer)] }
    let expected = (state.lastReceived[peer.id] ?? 0) + 1
    state.lastReceived[peer.id] = frame.sequence
    let data = Item.event(.data(frame.payload, from: peer, mode: .reliable))
    guard frame.sequence == expected else {
      return [
        .event(
          .refused("reliable data from \(peer) out of order: \(frame.sequence) came, \(expected) was next")),
        data,
      ]
    }
    return [data]
  }

  private func receiveResource(_ frame: PeerFrame, in state: inout State) -> [Item] {
    let peer = frame.source
    guard state.members[peer.id] != nil else {
      return [.event(.refused("a \(frame.kind) frame from \(peer), which is not connected"))]
    }
    switch frame.kind {
    case .resourceStart:
      let id = PeerResourceID(sender: peer.id, number: frame.sequence)
      guard state.incoming[id] == nil else { return [.event(.refused("resource \(id) started twice"))] }
      let progress = PeerResourceProgress(
        id: id, name: frame.text, peer: peer, direction: .receiving, bytes: 0, total: frame.value)
      do throws(PeerError) { try storage.begin(id, name: frame.text, size: frame.value) } catch {
        return refuseIncoming(progress, reason: error.description, in: state)
      }
      state.incoming[id] = progress
      return [.event(.resource(.started(progress)))] + (frame.value == 0 ? complete(id, in: &state) : [])
    case .resourceChunk:
      let id = PeerResourceID(sender: peer.id, number: frame.sequence)
      guard var progress = state.incoming[id] else { return [] }  // cancelled here meanwhile
      guard frame.value == progress.bytes, UInt64(frame.payload.count) <= progress.total - progress.bytes
      else {
        state.incoming[id] = nil
        storage.discard(id)
        return refuseIncoming(
          progress,
          reason:
            "a chunk at \(frame.value) of \(frame.payload.count) bytes does not follow byte \(progress.bytes)",
          in: state)
      }
      do throws(PeerError) { try storage.write(id, bytes: frame.payload, at: frame.value) } catch {
        state.incoming[id] = nil
        storage.discard(id)
        return refuseIncoming(progress, reason: error.description, in: state)
      }
      progress.bytes += UInt64(frame.payload.count)
      state.incoming[id] = progress
      if progress.bytes == progress.total {
        return [.event(.resource(.progressed(progress)))] + complete(id, in: &state)
      }
      _ = forward(
        PeerFrame(
          kind: .resourceAcknowledgement, source: local, destination: peer.id, sequence: id.number,
          value: progress.bytes), to: peer.id, in: state)
      return [.event(.resource(.progressed(progress)))]
    case .resourceAcknowledgement:
      let id = PeerResourceID(sender: local.id, number: frame.sequence)
      guard var outgoing = state.outgoing[id], outgoing.progress.peer.id == peer.id else { return [] }
      outgoing.progress.bytes = min(frame.value, outgoing.sent)
      if frame.flags.contains(.completed) {
        state.outgoing[id] = nil
        outgoing.progress.bytes = outgoing.progress.total
        return [.event(.resource(.finished(outgoing.progress, location: nil)))]
      }
      state.outgoing[id] = outgoing
      return [.event(.resource(.progressed(outgoing.progress)))] + pump(id, in: &state)
    case .resourceCancel:
      // `value` names the transfer's sender: this peer (the receiver cancelled) or the source.
      let id = PeerResourceID(sender: frame.value, number: frame.sequence)
      if id.sender == local.id, let outgoing = state.outgoing[id], outgoing.progress.peer.id == peer.id {
        state.outgoing[id] = nil
        return [.event(.resource(.cancelled(outgoing.progress, byPeer: true)))]
      }
      if id.sender == peer.id, let incoming = state.incoming.removeValue(forKey: id) {
        storage.discard(id)
        return [.event(.resource(.cancelled(incoming, byPeer: true)))]
      }
      return []
    default:
      return []
    }
  }

  /// The receiver stored all of `id`: it finishes and tells the sender.
  private func complete(_ id: PeerResourceID, in state: inout State) -> [Item] {
    guard let progress = state.incoming.removeValue(forKey: id) else { return [] }
    let location: String
    do throws(PeerError) { location = try storage.finish(id) } catch {
      storage.discard(id)
      return refuseIncoming(progress, reason: error.description, in: state)
    }
    _ = forward(
      PeerFrame(
        kind: .resourceAcknowledgement, flags: .completed, source: local, destination: progress.peer.id,
        sequence: id.number, value: progress.total), to: progress.peer.id, in: state)
    return [.event(.resource(.finished(progress, location: location)))]
  }

  /// A resource that cannot be received: the sender hears it cancelled, the handler why.
  private func refuseIncoming(_ progress: PeerResourceProgress, reason: String, in state: State) -> [Item] {
    _ = forward(
      PeerFrame(
        kind: .resourceCancel, source: local, destination: progress.peer.id, sequence: progress.id.number,
        value: progress.id.sender), to: progress.peer.id, in: state)
    return [.event(.resource(.failed(progress, reason: reason)))]
  }

  // MARK: Deliveries

  /// Queues items for the handler; called with the state locked, so that events are queued in
  /// the order the state changed (the handler gets them from ``drain()``, after the lock).
  /// Unreliable data beyond the receive queue's limit is dropped here and counted; one report
  /// per peer waits in the queue for the drops since the last.
  private func enqueue(_ items: [Item]) {
    guard !items.isEmpty else { return }
    deliveries.withLock { queue in
      for item in items {
        guard case .unreliable(_, let peer) = item else {
          queue.queue.append(item)
          continue
        }
        if queue.queuedUnreliable < receiveQueueLimit {
          queue.queuedUnreliable += 1
          queue.queue.append(item)
        } else {
          queue.totalDrops += 1
          let before = queue.unreported[peer.id, default: 0]
          queue.unreported[peer.id] = before + 1
          if before == 0 { queue.queue.append(.dropReport(peer)) }
        }
      }
    }
  }

  /// Hands queued events to the handler, outside the lock, one thread at a time (whoever finds
  /// the queue idle drains it), so that order holds and a handler may call the engine. With no
  /// handler, hands them to the iterators of ``events`` that wait, one each.
  private func drain() {
    while true {
      let next = deliveries.withLock { queue -> Drained in
        guard let handler = queue.handler else { return Self.wakeConsumers(&queue) }
        guard !queue.isEmpty, !queue.isDraining else { return .nothing }
        queue.isDraining = true
        var events: [PeerEvent] = []
        while let event = queue.takeFirst() { events.append(event) }
        return .handle(handler, events)
      }
      switch next {
      case .nothing:
        return
      case .handle(let handler, let events):
        for event in events { handler(event) }
        deliveries.withLock { $0.isDraining = false }
      case .wake(let handed, let notify):
        for (waiter, event) in handed { waiter.resume(returning: event) }
        notify?()
        return
      }
    }
  }

  /// What ``drain()`` found to do, with the queue locked once.
  private enum Drained {
    case nothing
    /// Events for the handler.
    case handle(EventHandler, [PeerEvent])
    /// With no handler: events for the iterators of `events` that wait, and the word to the
    /// consumer that takes them itself.
    case wake([(CheckedContinuation<PeerEvent?, Never>, PeerEvent?)], (@Sendable () -> Void)?)
  }

  /// With no handler: hands events to the iterators of `events` that wait, and says whether
  /// to tell the consumer that takes them itself.
  private static func wakeConsumers(_ queue: inout DeliveryQueue) -> Drained {
    var handed: [(CheckedContinuation<PeerEvent?, Never>, PeerEvent?)] = []
    while !queue.waiters.isEmpty, let event = queue.takeFirst() {
      handed.append((queue.waiters.removeFirst().1, event))
    }
    if queue.isFinished && queue.isEmpty {
      handed += queue.waiters.map { ($0.1, nil) }
      queue.waiters = []
    }
    guard let notifier = queue.notifier, !queue.isNotified, !queue.isEmpty || queue.isFinished else {
      return .wake(handed, nil)
    }
    queue.isNotified = true
    return .wake(handed, notifier)
  }

  // MARK: Events taken by a thread of its own

  /// For a consumer with a thread of its own, instead of a handler or ``events``: `notify` is
  /// called (on the thread that queued them, with nothing locked) when events wait and the
  /// consumer has not been told since ``takeEvents(limit:)`` last found the queue empty, and
  /// once when the engine stops. One call, then as many events as wait: a consumer that falls
  /// behind is woken once, not once per event, and unreliable data beyond the receive queue is
  /// dropped and counted as for a slow handler.
  public func setEventsNotifier(_ notify: (@Sendable () -> Void)?) {
    deliveries.withLock {
      $0.notifier = notify
      $0.isNotified = false
    }
    drain()
  }

  /// Whether events wait to be taken.
  public var hasWaitingEvents: Bool { deliveries.withLock { !$0.isEmpty } }

  /// Takes up to `limit` waiting events, oldest first, without waiting: none when none wait
  /// (or a handler takes them), `nil` once the engine has stopped and every event was taken.
  public func takeEvents(limit: Int) -> [PeerEvent]? {
    deliveries.withLock { queue -> [PeerEvent]? in
      guard queue.handler == nil else { return [] }
      var events: [PeerEvent] = []
      while events.count < limit, let event = queue.takeFirst() { events.append(event) }
      if queue.isEmpty {
        queue.isNotified = false
        if events.isEmpty && queue.isFinished { return nil }
      }
      return events
    }
  }

  // MARK: Events as an asynchronous sequence

  /// The events as an `AsyncSequence`, for use instead of a handler (set none): each `next()`
  /// takes the oldest event, waiting for one; a consumer that falls behind drops unreliable
  /// data as a slow handler does. The sequence ends when the engine is stopped and every event
  /// was taken; a task cancelled while waiting gets `nil`.
  public var events: PeerEvents { PeerEvents(engine: self) }

  func nextEvent() async -> PeerEvent? {
    let number = deliveries.withLock { queue in
      defer { queue.nextWaiter += 1 }
      return queue.nextWaiter
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<PeerEvent?, Never>) in
        let ready = deliveries.withLock { queue -> PeerEvent?? in
          if queue.handler == nil, queue.waiters.isEmpty, let event = queue.takeFirst() {
            return .some(event)
          }
          if queue.isFinished && queue.isEmpty || Task.isCancelled { return .some(nil) }
          queue.waiters.append((number, continuation))
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      let waiter = deliveries.withLock { queue -> CheckedContinuation<PeerEvent?, Never>? in
        guard let index = queue.waiters.firstIndex(where: { $0.0 == number }) else { return nil }
        return queue.waiters.remove(at: index).1
      }
      waiter?.resume(returning: nil)
    }
  }
}
