import CEpoll
import DeviceSession
import Dispatch
import Glibc
import PeerSession
import Synchronization
import WakeSignal

/// The local ``PeerLink``: peers of one service type on one machine, under
/// `<home>/peers/<service>/` (see ``PeerDirectory`` for the files).
///
/// - **Running**: a peer holds its run lock (`ID.lock`, an open-file-description lock, released
///   the moment the process ends, SIGKILL included) and listens on `ID.sock`.
/// - **Discovery**: an advertiser writes `ID.advert` (one advertisement frame, replaced
///   atomically); a browser scans the directory every ``scanMilliseconds`` and counts an
///   advertisement only while its lock is held, so a killed advertiser's stale file is
///   `withdrawn` within that bound (a stopped one removes its file). Polling a small directory
///   rather than inotify: the lock is what decides, and no file event says a lock was dropped.
/// - **Connections**: the first of two peers to send to the other connects to its socket and
///   says who it is (a `hello`: its own advertisement frame); both then use that one connection,
///   both ways. Only two peers that both send before either's hello arrives make two, and each
///   keeps sending on its own, so frames stay in order. The end of a peer's last connection
///   (it stopped, or its process ended) is `hungUp`.
///
/// One thread at a time waits in `epoll` for the listening socket, the connections, a wake-up and
/// the scan's timeout, and delivers every event, in order; it takes no lock that a sender holds
/// on its way from `epoll_wait` to the frames' events (the set is kept up to date by whoever
/// changes a connection). With ``setEventWork(_:)`` there are
/// two: the one that read frames hands their events over itself; the other reads on when that
/// takes long.
public final class LocalPeerLink: PeerLink {
  /// How often a browsing link scans the advertisements, in milliseconds: the bound on `found`
  /// and on `withdrawn` after SIGKILL.
  public static let scanMilliseconds: Int32 = 200
  /// The largest advertisement file read (an advertisement frame is far smaller).
  static let advertisementLimit = 64 << 10

  /// The peer this link belongs to.
  public let local: PeerIdentity
  /// Its service's directory.
  public let directory: PeerDirectory
  private let codec = PeerFrameCodec()
  private let state = Mutex(LinkState())
  /// Wakes the reading thread from `epoll_wait`; `nil` when the system gave none (``wakeFailure``).
  private let wake: WakePipe?
  private let wakeFailure: WakePipeError?
  /// The reading thread's `epoll` set: the wake-up pipe, the listening socket, the connections
  /// (each tagged with its descriptor), writing asked for while frames wait to go out.
  private let epollSet: Int32
  /// Set once by ``stop()``: read by the reading threads without the state's lock.
  private let isStopping = Atomic<Bool>(false)
  /// Whether the link browses, and whether a scan is due now (``browse(_:)``).
  private let isBrowsing = Atomic<Bool>(false)
  private let scanNow = Atomic<Bool>(false)
  /// Held by the reading thread that waits in `poll` and reads.
  private let poller = Mutex(PollerState())
  /// Set by ``eventsWaiting()``; taken by the reading thread at the end of its round.
  private let workPending = Atomic<Bool>(false)
  /// The reading threads, as `pthread_self()` gives them (0 before they run).
  private let firstReader = Atomic<UInt>(0)
  private let secondReader = Atomic<UInt>(0)
  /// How many times each thread started or ended the work: odd while it runs it.
  private let firstBusy = Atomic<UInt64>(0)
  private let secondBusy = Atomic<UInt64>(0)
  /// Whether the watching thread sleeps until work starts (rather than looking every
  /// ``takeOverMilliseconds``), and what wakes it.
  private let watcherSleeps = Atomic<Bool>(false)
  private let watcherWake = DispatchSemaphore(value: 0)
  /// Signalled by each of the link's threads as it ends.
  private let threadEnded = DispatchSemaphore(value: 0)

  private struct Connection {
    var peer: PeerIdentity?
    var outbound = OutboundBuffer()
    /// Whether the `epoll` set asks to write it (while `outbound` holds frames).
    var wantsWrite = false
  }

  private struct LinkState {
    var lock: RunLock?
    var listener: Int32 = -1
    var connections: [Int32: Connection] = [:]
    /// The connection each peer's frames are sent on.
    var routes: [UInt64: Int32] = [:]
    var isStopping = false
    var threads: [pthread_t] = []
    var work: (@Sendable () -> Void)?
  }

  /// A link for `local` under `home`; nothing happens before ``start(_:)``.
  public init(local: PeerIdentity, service: ServiceType, home: String) {
    self.local = local
    directory = PeerDirectory(home: home, service: service)
    (wake, wakeFailure) = LocalSocket.wakePipe()
    epollSet = epoll_create1(Int32(EPOLL_CLOEXEC))
  }

  deinit {
    if epollSet >= 0 { _ = close(epollSet) }
  }

  /// The hello a connecting peer sends first, and what `ID.peer` holds: this peer's identity.
  private var identityFrame: PeerFrame { PeerAdvertisement(peer: local, service: directory.service).frame }

  public func start(_ handler: @escaping @Sendable (PeerLinkEvent) -> Void) throws(LinkError) {
    guard let wake else { throw LinkError(wakeFailure?.description ?? "no wake-up pipe") }
    guard epollSet >= 0, watch(wake.readDescriptor, tag: Self.wakeTag, writing: false) else {
      throw LinkError("no epoll set for the peer link: \(String(cString: strerror(errno)))")
    }
    let lock = try directory.takeRunLock(for: local)
    directory.sweepStale(except: local.id)
    let socketPath = directory.socketPath(local.id)
    let listener = try LocalSocket.listen(at: socketPath, backlog: 64, ownerOnly: true)
    let identity: [UInt8]
    do throws(PeerFrameError) { identity = try codec.encode(identityFrame) } catch {
      _ = close(listener)
      throw LinkError("cannot encode the peer's identity: \(error)")
    }
    do throws(SystemCallFailure) {
      try DeviceFiles.writeAtomically(identity, to: directory.identityPath(local.id))
    } catch {
      _ = close(listener)
      throw LinkError(error.message)
    }
    guard watch(listener, tag: Self.listenerTag, writing: false) else {
      _ = close(listener)
      throw LinkError("cannot watch the peer's socket: \(String(cString: strerror(errno)))")
    }
    poller.withLock {
      $0.handler = handler
      $0.listener = listener
    }
    let hasWork = state.withLock {
      $0.listener = listener
      $0.lock = lock
      return $0.work != nil
    }
    // A second reading thread only when there is work to hand over (see setEventWork).
    for slot in 0..<(hasWork ? 2 : 1) {
      switch SystemThread.start({ self.run(slot) }) {
      case .success(let thread): state.withLock { $0.threads.append(thread) }
      case .failure(let failure):
        stop()
        throw LinkError("no thread for the peer link: \(failure.message)")
      }
    }
  }

  public func advertise(_ advertisement: PeerAdvertisement?) {
    let path = directory.advertisementPath(local.id)
    guard let advertisement, let bytes = try? codec.encode(advertisement.frame) else {
      _ = unlink(path)
      return
    }
    try? DeviceFiles.writeAtomically(bytes, to: path)
  }

  public func browse(_ service: ServiceType?) {
    let browsing = service == directory.service
    isBrowsing.store(browsing, ordering: .sequentiallyConsistent)
    scanNow.store(browsing, ordering: .sequentiallyConsistent)
    signalWake()
  }

  public func send(_ frame: PeerFrame, to peer: PeerIdentity) -> Bool {
    guard peer.id != local.id, let bytes = try? codec.encode(frame) else { return false }
    return state.withLock { state -> Bool in
      guard !state.isStopping, state.listener >= 0 else { return false }
      let descriptor: Int32
      if let known = state.routes[peer.id] {
        descriptor = known
      } else {
        guard let hello = try? codec.encode(identityFrame), let opened = connect(to: peer) else {
          return false
        }
        guard watch(opened, tag: UInt64(opened), writing: true) else {
          _ = close(opened)
          return false
        }
        descriptor = opened
        state.connections[descriptor] = Connection(peer: peer, wantsWrite: true)
        state.routes[peer.id] = descriptor
        state.connections[descriptor]?.outbound.append(hello)
      }
      guard var connection = state.connections[descriptor] else { return false }
      if connection.outbound.isEmpty {
        let written = LocalSocket.write(descriptor, bytes[...])
        if written == bytes.count { return true }
        connection.outbound.append(bytes[max(written, 0)...])
      } else {
        connection.outbound.append(bytes)
        let written = LocalSocket.write(descriptor, connection.outbound.pending)
        if written > 0 { connection.outbound.consume(written) }
      }
      // The reading thread's `epoll_wait` sees the change: no wake-up.
      arm(descriptor, &connection)
      state.connections[descriptor] = connection
      return true
    }
  }

  public func stop() {
    isStopping.store(true, ordering: .sequentiallyConsistent)
    let threads = state.withLock { state -> [pthread_t] in
      state.isStopping = true
      defer { state.threads = [] }
      return state.threads
    }
    signalWake()
    watcherWake.signal()
    // A reading thread stopping the link (a handler that stops its peer) is not waited for,
    // nor, past ``joinSeconds``, one whose work does not return (a handler stuck on a
    // terminal): each ends once the work it runs returns.
    let others = threads.filter { pthread_equal($0, pthread_self()) == 0 }
    let deadline = DispatchTime.now() + .seconds(Self.joinSeconds)
    let ended = others.allSatisfy { _ in threadEnded.wait(timeout: deadline) == .success }
    for thread in threads {
      if ended && pthread_equal(thread, pthread_self()) == 0 {
        _ = pthread_join(thread, nil)
      } else {
        _ = pthread_detach(thread)
      }
    }
    drainOutbound(seconds: 2)
    closeAll()
    for path in [
      directory.socketPath(local.id), directory.advertisementPath(local.id), directory.identityPath(local.id),
    ] {
      _ = unlink(path)
    }
    state.withLock { state in
      state.lock?.release()
      state.lock = nil
    }
  }

  // MARK: The link's threads

  /// Has the link's threads run `work` (which hands waiting events over) whenever
  /// ``eventsWaiting()`` said so: after the frames read together are delivered to the engine,
  /// the thread that read them runs `work` itself, so an event reaches the handler on the thread
  /// that read it, with no hop to another thread. The link's second thread watches: when `work`
  /// has run for ``takeOverMilliseconds``, it takes over reading, so a handler that takes long
  /// holds up only itself (and the engine drops unreliable data beyond its queue, and counts
  /// it). Set before ``start(_:)``.
  public func setEventWork(_ work: @escaping @Sendable () -> Void) {
    state.withLock { $0.work = work }
  }

  /// How long ``stop()`` waits for the link's threads (one may be running a handler) before it
  /// leaves them to end on their own.
  static let joinSeconds = 2

  /// How long the thread that reads may run the event work before the other thread reads on.
  public static let takeOverMilliseconds = 10

  /// Says that events wait for the work ``setEventWork(_:)`` gave: run by the link's thread that
  /// reads next (woken when this is another thread).
  public func eventsWaiting() {
    workPending.store(true, ordering: .sequentiallyConsistent)
    let me = UInt(pthread_self())
    if firstReader.load(ordering: .acquiring) != me && secondReader.load(ordering: .acquiring) != me {
      signalWake()
    }
  }

  /// One of the link's threads: it reads while it holds the poller, runs the work the frames it
  /// read made, and watches while the other thread reads.
  private func run(_ slot: Int) {
    defer { threadEnded.signal() }
    let me = UInt(pthread_self())
    if slot == 0 {
      firstReader.store(me, ordering: .releasing)
    } else {
      secondReader.store(me, ordering: .releasing)
    }
    let work = state.withLock { $0.work }
    while true {
      // Only one reads; the other finds the poller taken and watches it.
      let round = poller.withLockIfAvailable { loop -> Bool in
        while true {
          guard iterate(&loop) else { return false }
          if work != nil && workPending.exchange(false, ordering: .sequentiallyConsistent) { return true }
        }
      }
      switch round {
      case false?:
        return
      case true?:
        // Odd while in the work: the watcher takes over when it stays the same odd number.
        countWork(slot)
        if watcherSleeps.exchange(false, ordering: .sequentiallyConsistent) { watcherWake.signal() }
        work?()
        countWork(slot)
      case nil:
        guard watch(1 - slot) else { return }
      }
    }
  }

  /// Waits while the other thread reads; returns `true` once its work has run for a whole
  /// ``takeOverMilliseconds`` (then this thread reads), `false` when the link stops. After a
  /// quiet while it sleeps until the other thread starts work again.
  private func watch(_ other: Int) -> Bool {
    var seen = UInt64.max
    var quiet = 0
    while !isStopping.load(ordering: .sequentiallyConsistent) {
      let now = works(other)
      if now % 2 == 1 && now == seen { return true }
      quiet = now == seen ? quiet + 1 : 0
      seen = now
      if quiet >= 10 {
        watcherSleeps.store(true, ordering: .sequentiallyConsistent)
        if works(other) % 2 == 0 { watcherWake.wait() }
        watcherSleeps.store(false, ordering: .sequentiallyConsistent)
        (seen, quiet) = (UInt64.max, 0)
        continue
      }
      _ = watcherWake.wait(timeout: .now() + .milliseconds(Self.takeOverMilliseconds))
    }
    return false
  }

  private func countWork(_ slot: Int) {
    if slot == 0 {
      firstBusy.add(1, ordering: .sequentiallyConsistent)
    } else {
      secondBusy.add(1, ordering: .sequentiallyConsistent)
    }
  }

  private func works(_ slot: Int) -> UInt64 {
    slot == 0
      ? firstBusy.load(ordering: .sequentiallyConsistent) : secondBusy.load(ordering: .sequentiallyConsistent)
  }

  /// What the reading thread that holds the poller keeps between rounds.
  private struct PollerState {
    /// The link's handler and listening socket, set by ``start(_:)`` before the threads run.
    var handler: (@Sendable (PeerLinkEvent) -> Void)?
    var listener: Int32 = -1
    var inbound: [Int32: Inbound] = [:]
    var announced: [UInt64: PeerAdvertisement] = [:]
    var buffer = [UInt8](repeating: 0, count: 65536)
    var events = [epoll_event](repeating: epoll_event(), count: 16)
    var nextScan = ContinuousClock.now
  }

  /// What is being read from one connection, and who is at its other end once known (kept
  /// here, so that reading takes no lock).
  private struct Inbound {
    var frames: PeerFrameReader
    var peer: PeerIdentity?
  }

  /// The `epoll` tags of the wake-up pipe and the listening socket (a connection's is its
  /// descriptor).
  private static let wakeTag = UInt64.max
  private static let listenerTag = UInt64.max - 1

  /// One round: scan when due, wait in `epoll_wait`, read, write out, accept. `false` once
  /// stopping.
  private func iterate(_ loop: inout PollerState) -> Bool {
    if isStopping.load(ordering: .sequentiallyConsistent) { return false }
    let browsing = isBrowsing.load(ordering: .relaxed)
    var timeout: Int32 = -1
    if browsing {
      let now = ContinuousClock.now
      if scanNow.exchange(false, ordering: .sequentiallyConsistent) || now >= loop.nextScan {
        scan(&loop.announced, loop.handler)
        loop.nextScan = ContinuousClock.now + .milliseconds(Int64(Self.scanMilliseconds))
      }
      timeout = (loop.nextScan - ContinuousClock.now).pollTimeoutMilliseconds
    } else if !loop.announced.isEmpty {
      loop.announced = [:]  // the engine forgets found peers without `lost` when browsing stops
    }
    // Work signalled from elsewhere since the last round is not left waiting for a wake-up.
    if workPending.load(ordering: .acquiring) { timeout = 0 }
    let capacity = Int32(loop.events.count)
    let ready = loop.events.withUnsafeMutableBufferPointer {
      epoll_wait(epollSet, $0.baseAddress, capacity, timeout)
    }
    if ready < 0 { return errno == EINTR }
    var accepting = false
    var dropped: Set<Int32> = []
    for index in 0..<Int(ready) {
      let event = loop.events[index]
      switch event.data.u64 {
      case Self.wakeTag: wake?.drain()
      case Self.listenerTag: accepting = true
      case let tag:
        let descriptor = Int32(truncatingIfNeeded: tag)
        guard !dropped.contains(descriptor) else { continue }  // closed earlier in this round
        if event.events & EPOLLOUT.rawValue != 0 { flush(descriptor) }
        guard event.events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 else { continue }
        let open = receive(
          descriptor,
          into: &loop.inbound[descriptor, default: Inbound(frames: PeerFrameReader(codec: codec))],
          buffer: &loop.buffer, handler: loop.handler)
        if !open {
          loop.inbound[descriptor] = nil
          dropped.insert(descriptor)
          drop(descriptor, loop.handler)
        }
      }
    }
    if accepting {
      while true {
        let accepted = accept(loop.listener, nil, nil)
        guard accepted >= 0 else { break }
        _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
        _ = LocalSocket.setNonBlocking(accepted)
        Self.widenSendBuffer(accepted)
        state.withLock { $0.connections[accepted] = Connection() }
        if !watch(accepted, tag: UInt64(accepted), writing: false) { drop(accepted, loop.handler) }
      }
    }
    return true
  }

  /// Adds `descriptor` to the `epoll` set for reading (and writing), level-triggered.
  private func watch(_ descriptor: Int32, tag: UInt64, writing: Bool) -> Bool {
    var event = epoll_event()
    event.events = EPOLLIN.rawValue | (writing ? EPOLLOUT.rawValue : 0)
    event.data.u64 = tag
    return epoll_ctl(epollSet, EPOLL_CTL_ADD, descriptor, &event) == 0
  }

  /// Asks the `epoll` set to write `connection` while frames wait for it, and not after;
  /// called with the state locked, wherever its outbound buffer changed.
  private func arm(_ descriptor: Int32, _ connection: inout Connection) {
    let wanted = !connection.outbound.isEmpty
    guard wanted != connection.wantsWrite else { return }
    var event = epoll_event()
    event.events = EPOLLIN.rawValue | (wanted ? EPOLLOUT.rawValue : 0)
    event.data.u64 = UInt64(descriptor)
    if epoll_ctl(epollSet, EPOLL_CTL_MOD, descriptor, &event) == 0 { connection.wantsWrite = wanted }
  }

  /// Announces the advertisers whose lock is held and withdraws those gone since the last scan.
  private func scan(_ announced: inout [UInt64: PeerAdvertisement], _ handler: LinkHandler?) {
    var current: [UInt64: PeerAdvertisement] = [:]
    for name in (try? DeviceFiles.entries(of: directory.path)) ?? [] {
      guard let id = PeerDirectory.id(inFileName: name, suffix: ".advert"), id != local.id,
        RunLock.holder(at: directory.lockPath(id)) != nil,
        let bytes = try? DeviceFiles.read(directory.path + "/" + name, limit: Self.advertisementLimit),
        let advertisement = Self.advertisement(bytes, codec: codec), advertisement.peer.id == id,
        advertisement.service == directory.service
      else { continue }
      current[id] = advertisement
    }
    for (id, advertisement) in announced where current[id] == nil {
      emit(.withdrawn(advertisement.peer), handler)
    }
    for (id, advertisement) in current.sorted(by: { $0.key < $1.key }) where announced[id] != advertisement {
      emit(.announced(advertisement), handler)
    }
    announced = current
  }

  /// The advertisement one frame's bytes hold, or `nil`.
  static func advertisement(_ bytes: [UInt8], codec: PeerFrameCodec) -> PeerAdvertisement? {
    var reader = PeerFrameReader(codec: codec)
    reader.append(bytes)
    guard let frame = try? reader.next() else { return nil }
    return try? PeerAdvertisement(frame: frame)
  }

  /// Reads what is there and delivers whole frames; `false` when the connection is over.
  private func receive(
    _ descriptor: Int32, into inbound: inout Inbound, buffer: inout [UInt8], handler: LinkHandler?
  ) -> Bool {
    while true {
      let got = buffer.withUnsafeMutableBytes {
        recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
      }
      if got < 0 {
        if errno == EINTR { continue }
        return errno == EAGAIN || errno == EWOULDBLOCK
      }
      // Known once the hello came, or from the start on a connection this peer made (a
      // connection's peer never changes after that).
      if inbound.peer == nil { inbound.peer = state.withLock { $0.connections[descriptor]?.peer } }
      if got == 0 {
        if let peer = inbound.peer {
          do { try inbound.frames.finish() } catch { emit(.refused(error, from: peer), handler) }
        }
        return false
      }
      inbound.frames.append(buffer[0..<got])
      do {
        while let frame = try inbound.frames.next() {
          if let peer = inbound.peer {
            emit(.received(frame, from: peer), handler)
          } else {
            // The first frame of an accepted connection says who called.
            guard frame.kind == .advertisement, frame.source.id != local.id else { return false }
            inbound.peer = frame.source
            state.withLock { state in
              state.connections[descriptor]?.peer = frame.source
              if state.routes[frame.source.id] == nil { state.routes[frame.source.id] = descriptor }
            }
          }
        }
      } catch {
        if let peer = inbound.peer { emit(.refused(error, from: peer), handler) }
        return false
      }
      if got < buffer.count { return true }
    }
  }

  private func flush(_ descriptor: Int32) {
    state.withLock { state in
      guard var connection = state.connections[descriptor], !connection.outbound.isEmpty else { return }
      let written = LocalSocket.write(descriptor, connection.outbound.pending)
      if written > 0 { connection.outbound.consume(written) }
      arm(descriptor, &connection)
      state.connections[descriptor] = connection
    }
  }

  /// Closes a connection; when it was the peer's last, the peer hung up.
  private func drop(_ descriptor: Int32, _ handler: LinkHandler?) {
    let gone = state.withLock { state -> PeerIdentity? in
      guard let connection = state.connections.removeValue(forKey: descriptor) else { return nil }
      guard let peer = connection.peer else { return nil }
      if state.routes[peer.id] == descriptor {
        state.routes[peer.id] = state.connections.first { $0.value.peer?.id == peer.id }?.key
      }
      return state.routes[peer.id] == nil ? peer : nil
    }
    _ = epoll_ctl(epollSet, EPOLL_CTL_DEL, descriptor, nil)
    _ = close(descriptor)
    if let gone { emit(.hungUp(gone), handler) }
  }

  private typealias LinkHandler = @Sendable (PeerLinkEvent) -> Void

  private func emit(_ event: PeerLinkEvent, _ handler: LinkHandler?) {
    guard let handler, !isStopping.load(ordering: .sequentiallyConsistent) else { return }
    handler(event)
  }

  // MARK: Descriptors

  /// A non-blocking connection to `peer`'s socket, or `nil` when nothing listens there.
  private func connect(to peer: PeerIdentity) -> Int32? {
    guard let descriptor = LocalSocket.connect(to: directory.socketPath(peer.id)) else { return nil }
    Self.widenSendBuffer(descriptor)
    return descriptor
  }

  /// What a connection's kernel send buffer is asked to hold: a resource's whole window (8
  /// chunks of 64 KiB) and then some, so that a transfer's chunks go straight to the kernel
  /// instead of waiting, copied, in the outbound buffer for the socket to drain (the default,
  /// about 208 KiB, holds three). The kernel caps it at `net.core.wmem_max`.
  static let sendBufferBytes: Int32 = 1 << 20

  /// Asks for ``sendBufferBytes`` on `descriptor`; a refusal keeps the default (only slower).
  static func widenSendBuffer(_ descriptor: Int32) {
    var bytes = sendBufferBytes
    _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
  }

  /// Writes out what is still queued (the `leave` frames of a peer that stops), for up to
  /// `seconds`. Runs after the link's thread has ended.
  private func drainOutbound(seconds: Double) {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
      let pending = state.withLock { state in
        state.connections.filter { !$0.value.outbound.isEmpty }.map(\.key)
      }
      guard !pending.isEmpty else { return }
      var descriptors = pending.map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
      let polled = poll(&descriptors, nfds_t(descriptors.count), 50)
      if polled < 0 && errno != EINTR { return }
      for entry in descriptors where entry.revents != 0 {
        if entry.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
          state.withLock { _ = $0.connections[entry.fd]?.outbound.removeAll() }
        } else {
          flush(entry.fd)
        }
      }
    }
  }

  private func signalWake() { wake?.signal() }

  private func closeAll() {
    let descriptors = state.withLock { state -> [Int32] in
      defer {
        state.listener = -1
        state.connections = [:]
        state.routes = [:]
      }
      return [state.listener] + Array(state.connections.keys)
    }
    for descriptor in descriptors where descriptor >= 0 { _ = close(descriptor) }
  }

}
