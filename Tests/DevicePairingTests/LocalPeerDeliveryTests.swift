import DevicePairing
import Dispatch
import PeerSession
import Synchronization
import Testing

/// How a running peer hands its events over: on the link's thread that read them, with the
/// link's other thread reading on while a handler takes long, and events made elsewhere (a
/// control request, a timer) handed over too.
@Suite struct LocalPeerDeliveryTests {
  /// The handler runs on a thread of the link: one that stops its own peer must not wait for
  /// itself.
  @Test func aHandlerMayStopItsOwnPeer() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let stopped = DispatchSemaphore(value: 0)
    let box = Mutex<LocalPeer?>(nil)
    let host = try LocalPeerTests.Peer(
      "host", home: home.path, advertise: true,
      handler: { event in
        guard case .data = event, let peer = box.withLock({ $0 }) else { return }
        peer.stop()
        stopped.signal()
      })
    box.withLock { $0 = host.peer }
    let guest = try LocalPeerTests.Peer("guest", home: home.path, browse: true)
    defer { [host, guest].forEach { $0.stop() } }
    #expect(guest.find(host))
    #expect(guest.request(["invite", "host", "", "10"]).text(0) == "ok")
    #expect(guest.request(["send", "host", "reliable", "bye"]).text(0) == "ok")
    #expect(stopped.wait(timeout: .now() + 10) == .success)
    // The guest hears the host leave.
    let left = guest.events.wait { events in
      events.contains { if case .stateChanged(_, .notConnected, _) = $0 { true } else { false } }
    }
    #expect(left.contains { if case .stateChanged(_, .notConnected, _) = $0 { true } else { false } })
  }

  /// Events made off the link's threads (the invitation sent from a control request, its
  /// `connecting` state) reach the handler without waiting for traffic.
  @Test func eventsMadeElsewhereAreHandedOver() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let host = try LocalPeerTests.Peer("host", home: home.path, advertise: true, policy: .ask)
    let guest = try LocalPeerTests.Peer("guest", home: home.path, browse: true)
    defer { [host, guest].forEach { $0.stop() } }
    #expect(guest.find(host))
    DispatchQueue.global().async { _ = guest.request(["invite", "host", "", "1"]) }
    let connecting = PeerEvent.stateChanged(host.identity, .connecting, reason: nil)
    #expect(guest.events.wait { $0.contains(connecting) }.contains(connecting))
    // Nobody answers: the timer's `timedOut` comes on its own thread.
    let timedOut = PeerEvent.stateChanged(host.identity, .notConnected, reason: .timedOut)
    #expect(guest.events.wait { $0.contains(timedOut) }.contains(timedOut))
  }

  /// A handler that never returns (a terminal that blocks) does not keep `stop()` from
  /// returning: the link waits for its threads for a bounded time, then leaves them.
  @Test func stopReturnsWhileAHandlerIsStuck() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let stuck = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let host = try LocalPeerTests.Peer(
      "host", home: home.path, advertise: true,
      handler: { event in
        guard case .data = event else { return }
        stuck.signal()
        release.wait()
      })
    let guest = try LocalPeerTests.Peer("guest", home: home.path, browse: true)
    defer {
      release.signal()
      guest.stop()
    }
    #expect(guest.find(host))
    #expect(guest.request(["invite", "host", "", "10"]).text(0) == "ok")
    #expect(guest.request(["send", "host", "reliable", "hold"]).text(0) == "ok")
    #expect(stuck.wait(timeout: .now() + 10) == .success)
    let stopped = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      host.stop()
      stopped.signal()
    }
    #expect(stopped.wait(timeout: .now() + 10) == .success)
  }
}
