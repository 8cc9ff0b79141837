import DeviceSession
import Glibc
import Synchronization

/// The local ``DeviceLink``: each running device listens on `<role>/link.sock`, and the one that
/// starts second connects to the one already running.
///
/// Chosen over the journal or files because a connection is an event both ways: frames arrive
/// with no polling, and a device that exits or is killed (SIGKILL included) closes its end, so
/// its counterpart sees it unreachable at once (`poll` reports the hang-up). The two devices'
/// start-ups are serialized by a lock on the pair's `link.lock`, so exactly one connection is
/// made however they race. One thread per link waits in `poll` for the listening socket, the
/// connection and a wake-up; it delivers every event, in order.
public final class UnixSocketLink: DeviceLink {
  /// The device this link belongs to.
  public let directory: DeviceDirectory
  private let codec: FrameCodec
  private let state = Mutex(LinkState())
  /// A pipe whose read end wakes the link's thread: `wake[0]` is read, `wake[1]` written.
  private let wake: (Int32, Int32)

  private struct LinkState {
    var handler: (@Sendable (LinkEvent) -> Void)?
    var listener: Int32 = -1
    var connection: Int32 = -1
    var outbound = OutboundBuffer()
    var isStopping = false
    var thread: pthread_t?
  }

  /// A link for the device of `directory`; nothing happens before ``start(_:)``.
  public init(directory: DeviceDirectory, codec: FrameCodec = FrameCodec()) {
    self.directory = directory
    self.codec = codec
    var ends: [Int32] = [-1, -1]
    if pipe(&ends) == 0 {
      for end in ends {
        _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        _ = LocalSocket.setNonBlocking(end)
      }
    }
    wake = (ends[0], ends[1])
  }

  deinit {
    if wake.0 >= 0 { _ = close(wake.0) }
    if wake.1 >= 0 { _ = close(wake.1) }
  }

  public func start(_ handler: @escaping @Sendable (LinkEvent) -> Void) throws(LinkError) {
    guard wake.0 >= 0 else { throw LinkError("no wake-up pipe: \(String(cString: strerror(errno)))") }
    let startup = open(directory.linkLockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard startup >= 0 else { throw LocalSocket.failure("open", directory.linkLockPath) }
    defer { _ = close(startup) }
    var request = flock()
    request.l_type = Int16(F_WRLCK)
    request.l_whence = Int16(SEEK_SET)
    while fcntl(startup, 38, &request) != 0 {  // F_OFD_SETLKW; released by the close above
      if errno != EINTR { throw LocalSocket.failure("lock", directory.linkLockPath) }
    }
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else { throw LocalSocket.failure("create a socket for", directory.socketPath) }
    _ = unlink(directory.socketPath)  // a dead device's socket; the run lock says none is alive
    let bound = Self.withAddress(directory.socketPath) { bind(listener, $0, $1) }
    guard bound == 0, listen(listener, 8) == 0, LocalSocket.setNonBlocking(listener) else {
      let error = LocalSocket.failure("listen on", directory.socketPath)
      _ = close(listener)
      throw error
    }
    let peer = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var connection: Int32 = -1
    if peer >= 0 {
      if Self.withAddress(directory.counterpart.socketPath, { connect(peer, $0, $1) }) == 0
        && isCounterpart(peer) && LocalSocket.setNonBlocking(peer)
      {
        connection = peer
      } else {
        _ = close(peer)  // the counterpart is not running: it connects to us when it starts
      }
    }
    state.withLock {
      $0.handler = handler
      $0.listener = listener
      $0.connection = connection
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
    var reader = FrameReader(codec: codec)
    if state.withLock({ $0.connection >= 0 }) { emit(.reachabilityChanged(true)) }
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let (listener, connection, wantsWrite, stopping) = state.withLock {
        ($0.listener, $0.connection, !$0.outbound.isEmpty, $0.isStopping)
      }
      if stopping { return }
      var descriptors = [
        pollfd(fd: wake.0, events: Int16(POLLIN), revents: 0),
        pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
        pollfd(fd: connection, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0),
      ]
      let ready = poll(&descriptors, nfds_t(connection >= 0 ? 3 : 2), -1)
      if ready < 0 {
        if errno == EINTR { continue }
        return
      }
      if descriptors[0].revents != 0 {
        var drained = [UInt8](repeating: 0, count: 64)
        while drained.withUnsafeMutableBytes({ Glibc.read(wake.0, $0.baseAddress, $0.count) }) > 0 {}
      }
      if connection >= 0 && descriptors[2].revents != 0 {
        if descriptors[2].revents & Int16(POLLOUT) != 0 { flush() }
        if descriptors[2].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
          if !receive(connection, into: &reader, buffer: &buffer) {
            drop(connection)
            reader = FrameReader(codec: codec)
          }
        }
      }
      if descriptors[1].revents & Int16(POLLIN) != 0 {
        let accepted = accept(listener, nil, nil)
        if accepted >= 0 && !isCounterpart(accepted) {
          // Anything but the counterpart's running device (a stray `connect`, another program):
          // refused, and the link it would have replaced is left alone.
          _ = close(accepted)
        } else if accepted >= 0 {
          _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
          _ = LocalSocket.setNonBlocking(accepted)
          // A counterpart that restarted before its old connection's hang-up was read: the new
          // connection replaces the old, and the session hears it went away and came back.
          let current = state.withLock { $0.connection }
          if current >= 0 { drop(current) }
          reader = FrameReader(codec: codec)
          state.withLock { $0.connection = accepted }
          emit(.reachabilityChanged(true))
        }
      }
    }
  }

  /// Whether the process at the other end of `connection` may be the counterpart's device: while
  /// the counterpart's role is held, only the process that holds it (the kernel's word for the
  /// peer's pid, `SO_PEERCRED`, against the pid in its run lock), so that no other process can
  /// take the place of a running counterpart's link. While the role is free the connection is
  /// taken: a device that connected, sent and ended at once (`pass` as the device) released its
  /// lock before this side accepted, and what it sent must still be read; there is then no link
  /// to take the place of, and its hang-up makes the counterpart unreachable again. A lock whose
  /// pid cannot be read (0) cannot be checked, and is trusted.
  func isCounterpart(_ connection: Int32) -> Bool {
    guard let holder = RunLock.holder(at: directory.counterpart.runLockPath), holder > 0 else { return true }
    return Self.peerProcess(connection) == holder
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
  private func receive(_ connection: Int32, into reader: inout FrameReader, buffer: inout [UInt8]) -> Bool {
    while true {
      let got = buffer.withUnsafeMutableBytes {
        recv(connection, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
      }
      if got < 0 {
        if errno == EINTR { continue }
        return errno == EAGAIN || errno == EWOULDBLOCK
      }
      if got == 0 {
        do { try reader.finish() } catch { emit(.refused(error)) }
        return false
      }
      reader.append(buffer[0..<got])
      // Whole frames of one read go up together, so that a backlog (a queue sent on reconnection)
      // is stored in batches; the rest wait for the next read.
      var frames: [DeviceFrame] = []
      var refusal: FrameError?
      do {
        while let frame = try reader.next() { frames.append(frame) }
      } catch { refusal = error }
      if frames.count == 1 {
        emit(.received(frames[0]))
      } else if !frames.isEmpty {
        emit(.receivedFrames(frames))
      }
      if let refusal {
        emit(.refused(refusal))
        return false
      }
      // A short read took everything there was: `poll` reports what comes next. Asking again
      // would only cost a `recv` that fails with EAGAIN, once per message.
      if got < buffer.count { return true }
    }
  }

  private func flush() {
    state.withLock { state in
      guard state.connection >= 0, !state.outbound.isEmpty else { return }
      let written = LocalSocket.write(state.connection, state.outbound.pending)
      if written > 0 { state.outbound.consume(written) }
    }
  }

  private func drop(_ connection: Int32) {
    let wasCurrent = state.withLock { state -> Bool in
      guard state.connection == connection else { return false }
      state.connection = -1
      state.outbound.removeAll()
      return true
    }
    _ = close(connection)
    if wasCurrent { emit(.reachabilityChanged(false)) }
  }

  private func emit(_ event: LinkEvent) {
    guard let handler = state.withLock({ $0.isStopping ? nil : $0.handler }) else { return }
    handler(event)
  }

  // MARK: Descriptors

  private func signalWake() {
    var one: UInt8 = 1
    _ = Glibc.write(wake.1, &one, 1)
  }

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

  /// Calls `body` with the socket address of `path`. A path longer than `sun_path` holds is
  /// reached through `/proc/self/fd/<directory>/<name>`, which Linux resolves the same way.
  static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    var target = path
    var directory: Int32 = -1
    if path.utf8.count >= capacity, let slash = path.lastIndex(of: "/") {
      directory = open(String(path[..<slash]), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      guard directory >= 0 else { return -1 }
      target = "/proc/self/fd/\(directory)" + path[slash...]
    }
    defer { if directory >= 0 { _ = close(directory) } }
    let bytes = Array(target.utf8)
    guard bytes.count < capacity else {
      errno = ENAMETOOLONG
      return -1
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
      raw[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
  }
}
