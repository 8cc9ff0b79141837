import DeviceSession
import Glibc
import WakeSignal

/// What the device link and the peer link do alike with their Unix-domain sockets.
enum LocalSocket {
  /// Puts `descriptor` in non-blocking mode; whether it could be.
  static func setNonBlocking(_ descriptor: Int32) -> Bool {
    let flags = fcntl(descriptor, F_GETFL)
    return flags >= 0 && fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0
  }

  /// Writes without blocking or raising SIGPIPE; returns the bytes written (0 when full, -1 on
  /// error).
  static func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Int {
    bytes.withUnsafeBytes { buffer -> Int in
      var offset = 0
      while offset < buffer.count {
        let sent = Glibc.send(
          descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset,
          Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        if sent < 0 {
          if errno == EINTR { continue }
          return offset > 0 ? offset : (errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1)
        }
        offset += sent
      }
      return offset
    }
  }

  /// The link error for a system call on `path` that failed with the current `errno`.
  static func failure(_ operation: String, _ path: String) -> LinkError {
    LinkError(SystemCallFailure(operation: operation, path: path, code: errno).message)
  }

  /// A non-blocking socket listening at `path` (a socket file already there is replaced: the
  /// caller's run lock says its owner is dead), for this user only when `ownerOnly`.
  static func listen(at path: String, backlog: Int32, ownerOnly: Bool) throws(LinkError) -> Int32 {
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else { throw failure("create a socket for", path) }
    _ = unlink(path)
    let bound = withAddress(path) { bind(listener, $0, $1) }
    guard bound == 0, !ownerOnly || chmod(path, 0o600) == 0, Glibc.listen(listener, backlog) == 0,
      setNonBlocking(listener)
    else {
      let error = failure("listen on", path)
      _ = close(listener)
      throw error
    }
    return listener
  }

  /// A non-blocking connection to the socket at `path`, or `nil` when nothing listens there.
  static func connect(to path: String) -> Int32? {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    guard withAddress(path, { Glibc.connect(descriptor, $0, $1) }) == 0, setNonBlocking(descriptor) else {
      _ = close(descriptor)
      return nil
    }
    return descriptor
  }

  /// The links' wake-up pipe, or why the system gave none.
  static func wakePipe() -> (WakePipe?, WakePipeError?) {
    do throws(WakePipeError) { return (try WakePipe(), nil) } catch { return (nil, error) }
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
