import DeviceSession
import Dispatch
import Glibc
import PeerSession
import TestSupport
import Testing

/// One peer sending reliably from many threads at once: the engine numbers its frames with its
/// state locked and writes them after (so that a link thread handling an arrival never waits
/// for a sender), one sender at a time, so the numbers still reach the link in order.
@Suite struct ConcurrentSendTests {
  /// A link that lets other threads run before each frame goes out, as a real link's system
  /// call does: a sender that numbered a frame and is overtaken before writing it shows.
  struct YieldingLink: PeerLink {
    let inner: ThreadedNetwork.Link

    func start(_ handler: @escaping @Sendable (PeerLinkEvent) -> Void) throws(LinkError) {
      try inner.start(handler)
    }
    func advertise(_ advertisement: PeerAdvertisement?) { inner.advertise(advertisement) }
    func browse(_ service: ServiceType?) { inner.browse(service) }
    func send(_ frame: PeerFrame, to peer: PeerIdentity) -> Bool {
      if frame.kind == .data { usleep(UInt32.random(in: 0...20)) }
      return inner.send(frame, to: peer)
    }
    func stop() { inner.stop() }
  }

  @Test func reliableSendsFromManyThreadsArriveNumberedInOrder() throws {
    let network = ThreadedNetwork()
    let hub = try ThreadedTests.Peer("hub", network: network)
    let spoke = PeerIdentity(name: try PeerName("spoke"))
    let engine = PeerEngine(
      local: spoke, service: try ServiceType("chat"), link: YieldingLink(inner: network.link(for: spoke)),
      timer: DispatchTimer(), storage: MemoryStorage())
    let spokeEvents = Collector<PeerEvent>()
    engine.setEventHandler { spokeEvents.append($0) }
    try engine.start()
    defer {
      engine.stop()
      hub.engine.stop()
    }
    try hub.engine.startAdvertising(policy: .always)
    try engine.startBrowsing()
    spokeEvents.wait { $0.contains(.found(hub.identity, info: DiscoveryInfo())) }
    try engine.invite(hub.identity, timeout: 30)
    hub.events.wait { _ in hub.engine.connectedPeers.count == 1 }
    spokeEvents.wait { _ in engine.connectedPeers.count == 1 }
    let threads = 4
    let each = 250
    let failures = Collector<String>()
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for number in 0..<each {
        do {
          try engine.send([UInt8(thread), UInt8(number)], to: [hub.identity], mode: .reliable)
        } catch {
          failures.append("\(error)")
        }
      }
    }
    #expect(failures.values.isEmpty)
    hub.events.wait { _ in hub.data(from: spoke).count >= threads * each }
    let received = hub.data(from: spoke)
    #expect(received.count == threads * each)
    // Each thread's own messages in the order it sent them, and no frame out of order.
    for thread in 0..<threads {
      #expect(received.filter { $0.first == UInt8(thread) }.map { Int($0[1]) } == Array(0..<each))
    }
    let refused = hub.events.values.filter { if case .refused = $0 { true } else { false } }
    #expect(refused.isEmpty, "\(refused.count) refused, first \(refused.prefix(2))")
  }
}
