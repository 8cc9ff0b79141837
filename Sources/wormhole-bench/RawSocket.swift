import Foundation
import Glibc

/// The raw Unix-socket side of the pair and peer baselines: the listening end in this process,
/// the connecting end in a child, and whole reads and writes on a descriptor.
enum RawSocket {
  /// Listens on a Unix socket at `path`, starts the child that `start` makes (it connects to
  /// `path`), and returns the accepted connection and the child.
  static func accept(at path: String, starting start: () throws -> PairChild) throws -> (
    connection: Int32, child: PairChild
  ) {
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else { throw BenchmarkFailure("socket: \(errno)") }
    defer { _ = close(listener) }
    var address = unixAddress(path)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard bound == 0, listen(listener, 1) == 0 else { throw BenchmarkFailure("bind \(path): \(errno)") }
    let child = try start()
    let connection = Glibc.accept(listener, nil, nil)
    guard connection >= 0 else { throw BenchmarkFailure("accept: \(errno)") }
    return (connection, child)
  }

  /// A connection to the Unix socket at `path` (the child's end).
  static func connect(to path: String) throws -> Int32 {
    let connection = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = unixAddress(path)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(connection, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connection >= 0, connected == 0 else { throw BenchmarkFailure("connect \(path): \(errno)") }
    return connection
  }
}

func unixAddress(_ path: String) -> sockaddr_un {
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  withUnsafeMutableBytes(of: &address.sun_path) { raw in
    for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
  }
  return address
}

func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
  bytes.withUnsafeBytes { buffer in
    var offset = 0
    while offset < buffer.count {
      let written = write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }
}

func readAll(_ descriptor: Int32, _ buffer: inout [UInt8], _ count: Int) -> Bool {
  buffer.withUnsafeMutableBytes { raw in
    var got = 0
    while got < count {
      let read = Glibc.read(descriptor, raw.baseAddress.map { $0 + got }, count - got)
      if read < 0 && errno == EINTR { continue }
      guard read > 0 else { return false }
      got += read
    }
    return true
  }
}

/// Reads standard input until it closes: how a bench child learns to end.
func waitForStandardInputToClose() {
  var byte: UInt8 = 0
  while true {
    let got = read(STDIN_FILENO, &byte, 1)
    if got < 0 && errno == EINTR { continue }
    if got <= 0 { break }
  }
}
