import DevicePairing
import DeviceSession
import Glibc
import Testing

/// A counterpart stopped with SIGSTOP keeps its local connection open, but answers nothing: live
/// messages to it fail as not reachable (7007) and `pair list` says the pair is not reachable,
/// until it is continued.
@Suite struct StoppedCounterpartTests {
  /// Sends `text` until the session refuses it as not reachable, for at most 2 s (the link looks
  /// at the counterpart's process at most every 50 ms); whether it was refused.
  private func refused(_ phone: DeviceUnderTest, _ text: String) -> Bool {
    let deadline = ContinuousClock.now + .seconds(2)
    while ContinuousClock.now < deadline {
      do { try phone.session.sendMessage(bytes(text), identifier: "tap") } catch {
        return error == .notReachable
      }
      usleep(5_000)
    }
    return false
  }

  @Test func aMessageToAStoppedCounterpartIsNotReachableUntilItIsContinued() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let watch = try ChildDevice([home.path, "pair", "watch", "hold"])
    defer { watch.kill() }
    let line = watch.waitForLine { $0.hasPrefix("activated ") }
    try #require(line == "activated \(watch.pid)", "the device did not start: \(watch.errorText)")
    let phone = try DeviceUnderTest(home.store, pair.phone)
    defer { phone.stop() }
    #expect(phone.waitReachable())
    try phone.session.sendMessage(bytes("awake"), identifier: "tap")
    #expect(home.store.status(of: pair).reachability == .reachable)

    _ = kill(watch.pid, SIGSTOP)
    try #require(Self.waitUntil { RunLock.isStopped(pid: watch.pid) }, "the watch did not stop")
    #expect(refused(phone, "stopped"))
    // Once refused, every message is, while it stays stopped: none waits in the connection.
    #expect(throws: SessionError.notReachable) {
      try phone.session.sendMessage(bytes("again"), identifier: "tap")
    }
    #expect(home.store.status(of: pair).reachability == .unreachable)
    // A transfer still queues, as for a counterpart that is away.
    _ = try phone.session.transferFile(bytes("queued"), identifier: "doc")

    _ = kill(watch.pid, SIGCONT)
    try #require(Self.waitUntil { !RunLock.isStopped(pid: watch.pid) }, "the watch did not continue")
    let deadline = ContinuousClock.now + .seconds(2)
    var sent = false
    while !sent && ContinuousClock.now < deadline {
      do {
        try phone.session.sendMessage(bytes("continued"), identifier: "tap")
        sent = true
      } catch { usleep(5_000) }
    }
    #expect(sent, "a continued counterpart is reachable again")
    #expect(home.store.status(of: pair).reachability == .reachable)
  }

  /// Whether `condition` came true within 10 s (polled: a process's state has no event to await).
  static func waitUntil(_ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
      guard ContinuousClock.now < deadline else { return false }
      usleep(1_000)
    }
    return true
  }
}
