import DevicePairing
import DeviceSession
import Glibc
import Testing

/// A device's activation as a third party (`pair list`, the dashboard) reads it from the store.
@Suite struct ActivationStatusTests {
  @Test func aDeviceIsActivatedFromActivationUntilItDeactivatesAndReachableTakesBoth() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = home.store
    let pair = try makePair(home)
    #expect(store.status(of: pair.watch).activationState == .notActivated)
    let watch = try DeviceUnderTest(store, pair.watch, activate: false)
    // Running, its session not activated yet: no link, so not reachable whatever the phone does.
    var status = store.status(of: pair.watch)
    #expect(status.isRunning && !status.isActivated && status.activationState == .notActivated)
    try watch.session.activate()
    #expect(store.status(of: pair.watch).activationState == .activated)
    let phone = try DeviceUnderTest(store, pair.phone, activate: false)
    #expect(!store.status(of: pair).isReachable, "a phone that runs but is not activated is not reachable")
    try phone.session.activate()
    // Reachable once the devices' links hear each other, as they report it.
    #expect(phone.waitReachable() && store.status(of: pair).isReachable)
    // Deactivated while its process still holds the role: running, not activated.
    watch.session.deactivate()
    status = store.status(of: pair.watch)
    #expect(status.isRunning && !status.isActivated)
    #expect(!store.status(of: pair).isReachable)
    watch.stop()
    phone.stop()
    status = store.status(of: pair.watch)
    #expect(!status.isRunning && !status.isActivated)
  }

  /// A killed device leaves its `link.sock`; the next run of the role is not activated until it
  /// activates, though the old socket is still there.
  @Test func aSocketLeftByAKilledDeviceIsNotActivation() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = home.store
    let pair = try makePair(home)
    let directory = store.directory(for: pair.phone)
    try bindStaleSocket(at: directory.socketPath)
    let phone = try DeviceUnderTest(store, pair.phone, activate: false)
    defer { phone.stop() }
    #expect(store.status(of: pair.phone).isRunning)
    #expect(!store.status(of: pair.phone).isActivated, "the dead device's socket counted as activation")
    try phone.session.activate()
    #expect(store.status(of: pair.phone).isActivated)
  }

  /// A socket at `path` whose process is gone, made a minute ago (as a device killed a while back
  /// leaves it).
  private func bindStaleSocket(at path: String) throws {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (index, byte) in path.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    try #require(bound == 0, "bind: \(String(cString: strerror(errno)))")
    var minuteAgo = timespec()
    clock_gettime(CLOCK_REALTIME, &minuteAgo)
    minuteAgo.tv_sec -= 60
    let times = [minuteAgo, minuteAgo]
    try #require(utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) == 0)
  }
}
