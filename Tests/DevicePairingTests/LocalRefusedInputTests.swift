import DevicePairing
import DeviceSession
import Glibc
import Testing

/// What the local link refuses is said as the counterpart's only when it came on a connection
/// known to be the counterpart's running device (the holder of its run lock, by the kernel's pid
/// of the connection's other end); bytes from a connection taken while the counterpart's role
/// was free may come from any process that can reach the socket, and are said as such.
@Suite struct LocalRefusedInputTests {
  /// Bytes whose length prefix (`garb`, about 1.7 GB) the frame codec refuses at once.
  static let garbage = bytes("garbage, not a frame")

  /// The descriptions of the session failures `device` delivered so far.
  static func failures(_ device: DeviceUnderTest) -> [String] {
    device.deliveries.values.compactMap {
      if case .failure(let error) = $0 { error.description } else { nil }
    }
  }

  /// A connection from this process to the Unix-domain socket at `path`, `nil` when it fails.
  static func connect(to path: String) -> Int32? {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      _ = close(descriptor)
      return nil
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else {
      _ = close(descriptor)
      return nil
    }
    return descriptor
  }

  /// Sends `garbage` to the watch's socket from this process, and waits (20 s) for the watch to
  /// say it refused something; the failures said.
  static func sendGarbage(to watch: DeviceUnderTest) throws -> [String] {
    let connection = try #require(connect(to: watch.device.directory.socketPath))
    defer { _ = close(connection) }
    let sent = garbage.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    #expect(sent == garbage.count)
    watch.deliveries.wait(seconds: 20) { values in
      values.contains { if case .failure = $0 { true } else { false } }
    }
    return failures(watch)
  }

  @Test func bytesFromAConnectionNotKnownToBeTheCounterpartsAreNotSaidAsItsFrame() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    // The phone does not run: its role is free, so the watch takes any connection (a device
    // that sent and ended before it was accepted must still be read).
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { watch.stop() }
    let said = try Self.sendGarbage(to: watch)
    #expect(said.count == 1, "\(said)")
    let line = try #require(said.first)
    #expect(line.hasPrefix("what came on this device's link socket from process \(getpid()) "), "\(line)")
    #expect(line.contains("(its sender is unknown)"), "\(line)")
    #expect(line.contains("was refused: a frame of "), "\(line)")
    #expect(!line.contains("a frame from the counterpart"), "\(line)")
  }

  @Test func bytesFromTheCounterpartsRunningDeviceAreSaidAsItsFrame() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { watch.stop() }
    // This process holds the phone's run lock: its connection is the phone's running device.
    let lock = try RunLock(path: home.store.directory(for: pair.phone).runLockPath)
    defer { lock.release() }
    let said = try Self.sendGarbage(to: watch)
    #expect(said.count == 1, "\(said)")
    let line = try #require(said.first)
    #expect(line.hasPrefix("a frame from the counterpart was refused: a frame of "), "\(line)")
    #expect(!line.contains("sender is unknown"), "\(line)")
  }
}
