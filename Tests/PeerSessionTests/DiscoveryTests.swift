import PeerSession
import Testing

@Suite struct DiscoveryTests {
  @Test func aBrowserFindsAnAdvertiserWithItsDiscoveryInfo() throws {
    let network = ScriptedNetwork()
    let advertiser = try TestPeer("desk", network: network)
    let browser = try TestPeer("phone", network: network)
    let info = try DiscoveryInfo(["room": "lobby"])
    try advertiser.engine.startAdvertising(info: info, policy: .always)
    try browser.engine.startBrowsing()
    network.run()
    #expect(browser.events.events == [.found(advertiser.identity, info: info)])
    #expect(browser.engine.foundPeers == [advertiser.identity: info])
    // The advertiser does not find itself, and a browser of another service finds nothing.
    #expect(advertiser.events.events.isEmpty)
    let other = try TestPeer("tv", service: "video", network: network)
    try other.engine.startBrowsing()
    network.run()
    #expect(other.events.events.isEmpty)
  }

  @Test func anAdvertiserThatStopsIsLost() throws {
    let network = ScriptedNetwork()
    let advertiser = try TestPeer("desk", network: network)
    let browser = try TestPeer("phone", network: network)
    try browser.engine.startBrowsing()
    try advertiser.engine.startAdvertising(policy: .always)
    network.run()
    advertiser.engine.stopAdvertising()
    network.run()
    #expect(
      browser.events.events == [
        .found(advertiser.identity, info: DiscoveryInfo()), .lost(advertiser.identity),
      ])
    #expect(browser.engine.foundPeers.isEmpty)
  }

  @Test func anAdvertiserWhoseLinkHangsUpIsLost() throws {
    let network = ScriptedNetwork()
    let advertiser = try TestPeer("desk", network: network)
    let browser = try TestPeer("phone", network: network)
    try advertiser.engine.startAdvertising(policy: .always)
    try browser.engine.startBrowsing()
    network.run()
    network.kill(advertiser.identity)
    network.run()
    #expect(browser.events.events.last == .lost(advertiser.identity))
    #expect(throws: PeerError.notFound(advertiser.identity)) {
      try browser.engine.invite(advertiser.identity)
    }
  }

  @Test func twoPeersMayShareANameAndAreFoundAsTwo() throws {
    let network = ScriptedNetwork()
    let first = try TestPeer("desk", network: network)
    let second = try TestPeer("desk", network: network)
    let browser = try TestPeer("phone", network: network)
    try first.engine.startAdvertising(policy: .always)
    try second.engine.startAdvertising(policy: .always)
    try browser.engine.startBrowsing()
    network.run()
    #expect(Set(browser.engine.foundPeers.keys) == [first.identity, second.identity])
  }

  @Test func nothingWorksBeforeStart() throws {
    let network = ScriptedNetwork()
    let identity = PeerIdentity(name: try PeerName("idle"))
    let engine = PeerEngine(
      local: identity, service: try ServiceType("chat"), link: network.link(for: identity),
      timer: ManualTimer(),
      storage: MemoryStorage())
    #expect(throws: PeerError.notStarted) { try engine.startBrowsing() }
    #expect(throws: PeerError.notStarted) { try engine.startAdvertising(policy: .always) }
    try engine.start()
    try engine.startBrowsing()
    engine.stop()
    #expect(throws: PeerError.notStarted) { try engine.startBrowsing() }
    #expect(throws: PeerError.stopped) { try engine.start() }
  }
}
