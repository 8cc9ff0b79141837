import DeviceSession
import PeerSession
import Synchronization
import Testing

/// A link that refuses a send (the broker's link while it reconnects: "not connected") takes
/// nothing: the frame's number is not spent, so the receiver sees no gap.
@Suite struct RefusedSendTests {
  /// The scripted network's link, refusing every send while ``isRefusing``.
  final class RefusingLink: PeerLink {
    let inner: ScriptedNetwork.Link
    let isRefusing = Atomic<Bool>(false)

    init(_ inner: ScriptedNetwork.Link) { self.inner = inner }

    func start(_ handler: @escaping @Sendable (PeerLinkEvent) -> Void) throws(LinkError) {
      try inner.start(handler)
    }
    func advertise(_ advertisement: PeerAdvertisement?) { inner.advertise(advertisement) }
    func browse(_ service: ServiceType?) { inner.browse(service) }
    func send(_ frame: PeerFrame, to peer: PeerIdentity) -> Bool {
      isRefusing.load(ordering: .acquiring) ? false : inner.send(frame, to: peer)
    }
    func stop() { inner.stop() }
  }

  @Test func aReliableSendTheLinkRefusedLeavesNoGapForTheReceiver() throws {
    let network = ScriptedNetwork()
    let identity = PeerIdentity(name: try PeerName("phone"))
    let link = RefusingLink(network.link(for: identity))
    let sender = PeerEngine(
      local: identity, service: try ServiceType("chat"), link: link, timer: ManualTimer(),
      storage: MemoryStorage())
    try sender.start()
    let receiver = try TestPeer("desk", network: network)
    try sender.startAdvertising(policy: .always)
    try receiver.engine.startBrowsing()
    network.run()
    try receiver.engine.invite(identity, context: [])
    network.run()
    #expect(sender.connectedPeers == [receiver.identity])
    try sender.send([1], to: [receiver.identity], mode: .reliable)
    link.isRefusing.store(true, ordering: .releasing)
    #expect(throws: PeerError.notConnected([receiver.identity])) {
      try sender.send([2], to: [receiver.identity], mode: .reliable)
    }
    link.isRefusing.store(false, ordering: .releasing)
    try sender.send([3], to: [receiver.identity], mode: .reliable)
    network.run()
    #expect(receiver.events.data == [[1], [3]])
    #expect(!receiver.events.events.contains { if case .refused = $0 { true } else { false } })
  }
}
