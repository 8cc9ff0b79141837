import DeviceSession
import Glibc

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
}
