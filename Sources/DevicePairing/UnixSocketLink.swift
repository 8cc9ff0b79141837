import CEpoll
import DeviceSession
import Dispatch
import Glibc
import Synchronization
import WakeSignal

/// The local ``DeviceLink``: each running device listens on `<role>/link.sock`, and the one that
/// starts second connects to the one already running.
///
/// Chosen over the journal or files because a connection is an event both ways: frames arrive
/// with no polling, and a device that exits or is killed (SIGKILL included) closes its end, so
/// its counterpart sees it unreachable at once (`poll` reports the hang-up). The two devices'
/// start-ups are serialized by a lock on the pair's `link.lock`, so exactly one connection is
/// made however they race. One thread per link waits in `epoll` for the listening socket, the
/// connection and a wake-up, and delivers the events, in order; a caller waiting for a reply
/// (``receiveOnCallingThread(until:deadline:starting:)``) takes the reading of the connection from it
/// meanwhile (the connection leaves the thread's `epoll` set until it is done), so the reply
/// wakes the caller itself, not a thread that would then wake it.
public final class UnixSocketLink: DeviceLink {
  /// The device this link belongs to.
  public let directory: DeviceDirectory
  private let codec: FrameCodec
  private let state = Mutex(LinkState())
  /// What the connection's reader keeps between reads; only the reader of the moment (see
  /// ``LinkState/reader``) touches it.
  private let reception: Mutex<Reception>
  /// Wakes the link's thread from `epoll_wait`; `nil` when the system gave none (``wakeFailure``).
  private let wake: WakePipe?
  private let wakeFailure: WakePipeError?
  /// The link's thread's `epoll` set: the wake-up pipe, the listening socket, the connection.
  private let poller: Int32
  /// Entered by a caller while it reads, so that closing the connection waits for it.
  private let callerReads = DispatchGroup()

  /// Who reads the connection and delivers what comes of it.
  private enum Reader { case nobody, thread, caller }

  private struct Reception {
    var frames: FrameReader
    var buffer = [UInt8](repeating: 0, count: 65536)
  }

  /// The tags of the `epoll` set's descriptors.
  private static let wakeTag: UInt64 = 0
  private static let listenerTag: UInt64 = 1
  private static let connectionTag: UInt64 = 2

  private struct LinkState {
    var handler: (@Sendable (LinkEvent) -> Void)?
    var listener: Int32 = -1
    var connection: Int32 = -1
    var outbound = OutboundBuffer()
    var isStopping = false
    var thread: pthread_t?
    /// Who reads the connection now: one at a time, so events stay in order.
    var reader = Reader.nobody
    /// While set, no caller takes the reading: the link's thread waits to replace the connection.
    var holdsOffCallers = false
    /// What the `epoll` set asks of the connection (0: not known to be armed).
    var interest: UInt32 = 0
    /// The process at the other end of the connection (`SO_PEERCRED`), 0 when not known.
    var counterpartPID: Int32 = 0
    /// Whether that process held the counterpart's run lock when the connection was taken:
    /// what comes on it is then the counterpart's; otherwise its sender is unknown.
    var isCounterpartChecked = false
    /// Whether that process was stopped (SIGSTOP) when last looked at, and when that was.
    var counterpartStopped = false
    var stoppedCheckedAt: ContinuousClock.Instant?
  }

  /// A link for the device of `directory`; nothing happens before ``start(_:)``.
  public init(directory: DeviceDirectory, codec: FrameCodec = FrameCodec()) {
    self.directory = directory
    self.codec = codec
    reception = Mutex(Reception(frames: FrameReader(codec: codec)))
    poller = epoll_create1(Int32(EPOLL_CLOEXEC))
    (wake, wakeFailure) = LocalSocket.wakePipe()
  }

  deinit {
    if poller >= 0 { _ = close(poller) }
  }

  public func start(_ handler: @escaping @Sendable (LinkEvent) -> Void) throws(LinkError) {
    guard let wake else { throw LinkError(wakeFailure?.description ?? "no wake-up pipe") }
    guard poller >= 0, watch(wake.readDescriptor, tag: Self.wakeTag) else {
      throw LinkError("no epoll set for the link: \(String(cString: strerror(errno)))")
    }
    let startup = open(directory.linkLockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard startup >= 0 else { throw LocalSocket.failure("open", directory.linkLockPath) }
    defer { _ = close(startup) }
    var request = flock()
    request.l_type = Int16(F_WRLCK)
    request.l_whence = Int16(SEEK_SET)
    while fcntl(startup, 38, &request) != 0 {  // F_OFD_SETLKW; released by the close above
      if errno != EINTR { throw LocalSocket.failure("lock", directory.linkLockPath) }
    }
    // A socket left there is a dead device's: the run lock says none is alive.
    let listener = try LocalSocket.listen(at: directory.socketPath, backlog: 8, ownerOnly: false)
    guard watch(listener, tag: Self.listenerTag) else {
      let error = LocalSocket.failure("listen on", directory.socketPath)
      _ = close(listener)
      throw error
    }
    var connection: Int32 = -1
    var origin = ConnectionOrigin.stranger
    // None: the counterpart is not running; it connects to us when it starts.
    if let peer = LocalSocket.connect(to: directory.counterpart.socketPath) {
      origin = self.origin(of: peer)
      if origin != .stranger { connection = peer } else { _ = close(peer) }
    }
    state.withLock {
      $0.handler = handler
      $0.listener = listener
      if connection >= 0 { adopt(connection, origin: origin, &$0) }
    }
    switch SystemThread.start({ self.run() }) {
    case .success(let thread): state.withLock { $0.thread = thread }
    case .failure(let failure):
      closeAll()
      throw LinkError("no thread for the link: \(failure.message)")
    }
  }

  public func send(_ frame: DeviceFrame) -> Bool {
    guard let bytes = try? codec.encode(frame) else { return false }
    return state.withLock { state -> Bool in
      guard state.connection >= 0, !state.isStopping else { return false }
      // A live message (or its reply) needs a counterpart that runs: one stopped with SIGSTOP
      // keeps its connection open, and would get it only once continued, so it is not reachable
      // for them (7007), as WatchConnectivity says of a device that is not running. Contexts and
      // transfers queue in the connection as they would on disk, delivered when it continues.
      if frame.kind == .message || frame.kind == .reply, Self.isStopped(&state) { return false }
      if state.outbound.isEmpty {
        // The common case writes at once, from the caller's thread: no wake-up in the way.
        let written = LocalSocket.write(state.connection, bytes[...])
        if written == bytes.count { return true }
        state.outbound.append(bytes[max(written, 0)...])
      } else {
        state.outbound.append(bytes)
      }
      signalWake()
      return true
    }
  }

  public func stop() {
    let thread = state.withLock { state -> pthread_t? in
      state.isStopping = true
      defer { state.thread = nil }
      return state.thread
    }
    signalWake()
    if let thread { _ = pthread_join(thread, nil) }
    signalWake()  // not drained now that the thread is gone: a caller reading sees it and leaves
    callerReads.wait()
    drainOutbound(seconds: Self.drainSeconds)
    closeAll()
    _ = unlink(directory.socketPath)
  }

  /// How long ``stop()`` waits for a connected counterpart to take the frames still queued.
  static let drainSeconds = 5.0

  /// Writes out what is still queued for the counterpart (a frame larger than the socket's
  /// buffer, sent just before stopping), so that it is not cut short by the close; gives up
  /// after `seconds` or when the connection fails. Runs after the link's thread has ended.
  private func drainOutbound(seconds: Double) {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while true {
      let connection = state.withLock { $0.outbound.isEmpty ? -1 : $0.connection }
      guard connection >= 0 else { return }
      let left = ContinuousClock.now.duration(to: deadline).components
      let milliseconds = Int32(max(0, left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000))
      guard milliseconds > 0 else { return }
      var ready = pollfd(fd: connection, events: Int16(POLLOUT), revents: 0)
      let polled = poll(&ready, 1, milliseconds)
      if polled < 0 && errno == EINTR { continue }
      guard polled > 0, ready.revents & Int16(POLLERR | POLLHUP | POLLNVAL) == 0 else { return }
      let progressed = state.withLock { state -> Bool in
        let written = LocalSocket.write(state.connection, state.outbound.pending)
        if written > 0 { state.outbound.consume(written) }
        return written >= 0
      }
      if !progressed { return }
    }
  }

  // MARK: The link's thread

  private func run() {
    if state.withLock({ $0.connection >= 0 }) {
      takeReadingForThread()
      emit(.reachabilityChanged(true))
      giveReadingBack()
    }
    var events = [epoll_event](repeating: epoll_event(), count: 4)
    while true {
      let stopping = state.withLock { state -> Bool in
        if !state.isStopping { arm(&state) }
        return state.isStopping
      }
      if stopping { return }
      let ready = epoll_wait(poller, &events, Int32(events.count), -1)
      if ready < 0 {
        if errno == EINTR { continue }
        return
      }
      var woken = false
      var accepting = false
      var connectionEvents: UInt32 = 0
      for event in events.prefix(Int(ready)) {
        switch event.data.u64 {
        case Self.wakeTag: woken = true
        case Self.listenerTag: accepting = true
        default: connectionEvents = event.events
        }
      }
      if woken {
        wake?.drain()
      }
      if connectionEvents != 0 {
        disarmFiredOneShot(connectionEvents)
        serviceConnection(connectionEvents)
      }
      if accepting { acceptConnection() }
    }
  }

  /// What `epoll` reported of the connection: flushes what waits to go out, and reads unless a
  /// caller is reading.
  private func serviceConnection(_ events: UInt32) {
    if events & EPOLLOUT.rawValue != 0 { flush() }
    guard events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 else { return }
    // While a caller reads, the interest is one-shot (a hang-up): off once it fired, and the
    // caller re-arms it when it gives the reading back.
    let connection = state.withLock { state -> Int32 in
      guard state.reader == .nobody, state.connection >= 0 else { return -1 }
      state.reader = .thread
      return state.connection
    }
    guard connection >= 0 else { return }
    let open = reception.withLock { receive(connection, into: &$0) }
    if !open { drop(connection) }
    giveReadingBack()
  }

  private func acceptConnection() {
    let (listener, stopping) = state.withLock { ($0.listener, $0.isStopping) }
    guard !stopping else { return }
    let accepted = accept(listener, nil, nil)
    guard accepted >= 0 else { return }
    let origin = self.origin(of: accepted)
    guard origin != .stranger else {
      // Anything but the counterpart's running device (a stray `connect`, another program):
      // refused, and the link it would have replaced is left alone.
      _ = close(accepted)
      return
    }
    _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
    _ = LocalSocket.setNonBlocking(accepted)
    takeReadingForThread()
    // A counterpart that restarted before its old connection's hang-up was read: the new
    // connection replaces the old, and the session hears it went away and came back.
    let current = state.withLock { $0.connection }
    if current >= 0 { drop(current) }
    state.withLock { adopt(accepted, origin: origin, &$0) }
    emit(.reachabilityChanged(true))
    giveReadingBack()
  }

  /// A one-shot registration (a caller reads) is off in the kernel once it fired: forgetting it,
  /// so that ``arm(_:)`` asks again for writing while frames wait (the caller's own message may be
  /// among them: without this, one flush took part of the backlog and the rest waited until the
  /// caller gave the reading back, at its reply's timeout). Not after a hang-up or an error,
  /// which the caller reads and drops: re-armed, it would fire again until then.
  private func disarmFiredOneShot(_ events: UInt32) {
    guard events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) == 0 else { return }
    state.withLock { state in
      if state.interest & EPOLLONESHOT.rawValue != 0 { state.interest = 0 }
    }
  }

  /// Makes the link's thread the reader, once a caller that reads has given the reading back.
  private func takeReadingForThread() {
    let callerReading = state.withLock { state -> Bool in
      guard state.reader != .nobody else {
        state.reader = .thread
        return false
      }
      state.holdsOffCallers = true
      return true
    }
    guard callerReading else { return }
    signalWake()  // the caller leaves its wait; this thread drains the pipe afterwards
    callerReads.wait()
    state.withLock { state in
      state.holdsOffCallers = false
      state.reader = .thread
    }
  }

  private func giveReadingBack() {
    state.withLock { state in
      state.reader = .nobody
      arm(&state)
    }
  }

  // MARK: A caller's reading

  public func receiveOnCallingThread(
    until isDone: () -> Bool, deadline: ContinuousClock.Instant, starting start: () -> Void
  ) -> Bool {
    let taken = state.withLock { state -> Int32 in
      guard state.reader == .nobody, !state.holdsOffCallers, !state.isStopping, state.connection >= 0 else {
        return -1
      }
      state.reader = .caller
      callerReads.enter()
      arm(&state)  // the connection leaves the thread's set: the reply wakes this thread only
      return state.connection
    }
    guard taken >= 0 else {
      start()
      return false
    }
    defer {
      giveReadingBack()
      callerReads.leave()
    }
    start()
    while !isDone() {
      let milliseconds = ContinuousClock.now.duration(to: deadline).pollTimeoutMilliseconds
      guard milliseconds > 0 else { break }
      var descriptors = [
        pollfd(fd: taken, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wake?.readDescriptor ?? -1, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&descriptors, 2, Int32(min(milliseconds, 60_000)))
      if ready < 0 {
        if errno == EINTR { continue }
        break
      }
      // The link's thread is wanted (stopping, a new connection, frames to flush): it reads again.
      if descriptors[1].revents != 0 { break }
      if descriptors[0].revents != 0 {
        let open = reception.withLock { receive(taken, into: &$0) }
        if !open {
          drop(taken)
          break
        }
      }
    }
    return true
  }

  // MARK: The epoll set

  /// Adds `descriptor` to the `epoll` set for reading, level-triggered.
  private func watch(_ descriptor: Int32, tag: UInt64) -> Bool {
    var event = epoll_event()
    event.events = EPOLLIN.rawValue
    event.data.u64 = tag
    return epoll_ctl(poller, EPOLL_CTL_ADD, descriptor, &event) == 0
  }

  /// Makes `connection` (from `origin`) the link's connection and adds it to the `epoll` set.
  private func adopt(_ connection: Int32, origin: ConnectionOrigin, _ state: inout LinkState) {
    state.connection = connection
    state.counterpartPID = Self.peerProcess(connection) ?? 0
    state.isCounterpartChecked = origin == .counterpart
    state.stoppedCheckedAt = nil
    var event = epoll_event()
    event.events = EPOLLIN.rawValue
    event.data.u64 = Self.connectionTag
    state.interest = epoll_ctl(poller, EPOLL_CTL_ADD, connection, &event) == 0 ? event.events : 0
  }

  /// Asks of the connection what the link's thread needs: reading unless a caller reads (then
  /// once, for a hang-up only), writing while frames wait to go out.
  private func arm(_ state: inout LinkState) {
    guard state.connection >= 0 else { return }
    var wanted: UInt32 = state.reader == .caller ? EPOLLONESHOT.rawValue : EPOLLIN.rawValue
    if !state.outbound.isEmpty { wanted |= EPOLLOUT.rawValue }
    guard wanted != state.interest else { return }
    var event = epoll_event()
    event.events = wanted
    event.data.u64 = Self.connectionTag
    if epoll_ctl(poller, EPOLL_CTL_MOD, state.connection, &event) == 0 { state.interest = wanted }
  }

  // MARK: The connection

  /// Whom a connection comes from, as far as the link can tell (``origin(of:)``).
  enum ConnectionOrigin: Equatable {
    /// The process that holds the counterpart's run lock: the counterpart's running device.
    case counterpart
    /// The counterpart's role is free (or its lock's pid cannot be read): any process that can
    /// reach the socket; taken, but what it sends is not said as the counterpart's.
    case unchecked
    /// Another process while the counterpart's device runs: refused.
    case stranger
  }

  /// Whether the process at the other end of `connection` may be the counterpart's device: while
  /// the counterpart's role is held, only the process that holds it (the kernel's word for the
  /// peer's pid, `SO_PEERCRED`, against the pid in its run lock), so that no other process can
  /// take the place of a running counterpart's link. While the role is free the connection is
  /// taken, unchecked: a device that connected, sent and ended at once (`pass` as the device)
  /// released its lock before this side accepted, and what it sent must still be read; there is
  /// then no link to take the place of, and its hang-up makes the counterpart unreachable again.
  /// A lock whose pid cannot be read (0) cannot be checked: taken, unchecked.
  func origin(of connection: Int32) -> ConnectionOrigin {
    guard let holder = RunLock.holder(at: directory.counterpart.runLockPath), holder > 0 else {
      return .unchecked
    }
    return Self.peerProcess(connection) == holder ? .counterpart : .stranger
  }

  /// What the link says of bytes on `connection` that are not a frame: the counterpart's when the
  /// connection is known to be its device's, else input of unknown sender.
  private func refusal(_ error: FrameError, on connection: Int32) -> LinkEvent {
    let (isChecked, pid) = state.withLock { state -> (Bool, Int32) in
      guard state.connection == connection else { return (false, 0) }
      return (state.isCounterpartChecked, state.counterpartPID)
    }
    guard !isChecked else { return .refused(error) }
    let counterpart = directory.address.role.counterpart
    let process = pid > 0 ? "process \(pid)" : "a process the kernel did not name"
    return .refusedInput(
      RefusedInput(
        "what came on this device's link socket from \(process) (no \(counterpart) held its run lock when it "
          + "connected)", reason: error.description))
  }

  /// How long a look at whether the counterpart's process is stopped holds: `/proc/PID/stat` is
  /// read at most this often, so a live message costs no system call in the common case.
  static let stoppedCheckInterval = Duration.milliseconds(50)

  /// Whether the counterpart's process is stopped (SIGSTOP), as last seen within
  /// ``stoppedCheckInterval``.
  private static func isStopped(_ state: inout LinkState) -> Bool {
    guard state.counterpartPID > 0 else { return false }
    let now = ContinuousClock.now
    if let checked = state.stoppedCheckedAt, now - checked < stoppedCheckInterval {
      return state.counterpartStopped
    }
    state.counterpartStopped = RunLock.isStopped(pid: state.counterpartPID)
    state.stoppedCheckedAt = now
    return state.counterpartStopped
  }

  /// The pid of the process at the other end of a Unix-domain socket, from the kernel.
  static func peerProcess(_ connection: Int32) -> Int32? {
    // `struct ucred { pid_t pid; uid_t uid; gid_t gid; }`, which Swift's Glibc does not declare.
    var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
    var length = socklen_t(MemoryLayout.size(ofValue: credentials))
    guard getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
      Int(length) == MemoryLayout.size(ofValue: credentials)
    else { return nil }
    return credentials.pid
  }

  /// Reads what is there and delivers whole frames; `false` when the connection is over.
  private func receive(_ connection: Int32, into reception: inout Reception) -> Bool {
    while true {
      let got = reception.buffer.withUnsafeMutableBytes {
        recv(connection, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
      }
      if got < 0 {
        if errno == EINTR { continue }
        return errno == EAGAIN || errno == EWOULDBLOCK
      }
      if got == 0 {
        do { try reception.frames.finish() } catch { emit(self.refusal(error, on: connection)) }
        return false
      }
      reception.frames.append(reception.buffer[0..<got])
      // Whole frames of one read go up together, so that a backlog (a queue sent on reconnection)
      // is stored in batches; the rest wait for the next read.
      var frames: [DeviceFrame] = []
      var refusal: FrameError?
      do {
        while let frame = try reception.frames.next() { frames.append(frame) }
      } catch { refusal = error }
      if frames.count == 1 {
        emit(.received(frames[0]))
      } else if !frames.isEmpty {
        emit(.receivedFrames(frames))
      }
      if let refusal {
        emit(self.refusal(refusal, on: connection))
        return false
      }
      // A short read took everything there was: `epoll` (or the caller's `poll`) reports what
      // comes next. Asking again would only cost a `recv` that fails with EAGAIN, once per message.
      if got < reception.buffer.count { return true }
    }
  }

  private func flush() {
    state.withLock { state in
      guard state.connection >= 0, !state.outbound.isEmpty else { return }
      let written = LocalSocket.write(state.connection, state.outbound.pending)
      if written > 0 { state.outbound.consume(written) }
    }
  }

  /// Closes `connection`; called by its reader of the moment (see ``LinkState/reader``).
  private func drop(_ connection: Int32) {
    let wasCurrent = state.withLock { state -> Bool in
      guard state.connection == connection else { return false }
      state.connection = -1
      state.interest = 0
      state.outbound.removeAll()
      return true
    }
    // Out of the set before the close: a child forked meanwhile may hold the socket open.
    _ = epoll_ctl(poller, EPOLL_CTL_DEL, connection, nil)
    _ = close(connection)
    reception.withLock { $0.frames = FrameReader(codec: codec) }
    if wasCurrent { emit(.reachabilityChanged(false)) }
  }

  private func emit(_ event: LinkEvent) {
    guard let handler = state.withLock({ $0.isStopping ? nil : $0.handler }) else { return }
    handler(event)
  }

  // MARK: Descriptors

  private func signalWake() { wake?.signal() }

  private func closeAll() {
    let (listener, connection) = state.withLock { state -> (Int32, Int32) in
      defer {
        state.listener = -1
        state.connection = -1
        state.outbound.removeAll()
      }
      return (state.listener, state.connection)
    }
    if listener >= 0 { _ = close(listener) }
    if connection >= 0 { _ = close(connection) }
  }
}
