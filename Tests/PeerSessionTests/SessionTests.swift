import PeerSession
import Testing

@Suite struct SessionTests {
  @Test func aSessionHoldsEightPeersAndRefusesANinth() throws {
    let network = ScriptedNetwork()
    let hub = try TestPeer("hub", network: network)
    let others = try (1...8).map { try TestPeer("peer\($0)", network: network) }
    for peer in others.prefix(7) { try connect(hub, peer, network: network) }
    #expect(hub.engine.connectedPeers.count == 7)
    // Every member knows every other: seven each.
    for peer in others.prefix(7) { #expect(peer.engine.connectedPeers.count == 7) }
    try others[7].engine.startAdvertising(policy: .always)
    network.run()
    #expect(throws: PeerError.sessionFull(limit: 8)) { try hub.engine.invite(others[7].identity) }
    #expect(PeerError.sessionFull(limit: 8).description.contains("kMCSessionMaximumNumberOfPeers"))
  }

  @Test func twoSessionsTooLargeTogetherDoNotMerge() throws {
    let network = ScriptedNetwork()
    // A session of five and a session of four: nine together.
    let left = try (1...5).map { try TestPeer("left\($0)", network: network) }
    let right = try (1...4).map { try TestPeer("right\($0)", network: network) }
    for peer in left.dropFirst() { try connect(left[0], peer, network: network) }
    for peer in right.dropFirst() { try connect(right[0], peer, network: network) }
    try right[0].engine.startAdvertising(policy: .always)
    try left[0].engine.startBrowsing()
    network.run()
    try left[0].engine.invite(right[0].identity)
    network.run()
    #expect(left[0].events.reason(for: right[0].identity) == .sessionFull)
    #expect(right[0].events.reason(for: left[0].identity) == .sessionFull)
    #expect(left[0].engine.connectedPeers.count == 4)
    #expect(right[0].engine.connectedPeers.count == 3)
  }

  @Test func peersConnectedThroughACommonPeerFormOneMesh() throws {
    let network = ScriptedNetwork()
    let alice = try TestPeer("alice", network: network)
    let bob = try TestPeer("bob", network: network)
    let carol = try TestPeer("carol", network: network)
    try connect(alice, bob, network: network)
    try connect(bob, carol, network: network)
    #expect(alice.engine.connectedPeers == [bob.identity, carol.identity])
    #expect(carol.engine.connectedPeers == [alice.identity, bob.identity])
    #expect(alice.engine.route(to: carol.identity) == bob.identity)
    #expect(carol.engine.route(to: alice.identity) == bob.identity)
    #expect(alice.engine.route(to: bob.identity) == bob.identity)
    // Any can send to any: alice's data to carol is relayed by bob, who does not receive it.
    try alice.engine.send([42], to: [carol.identity], mode: .reliable)
    try carol.engine.send([43], to: [alice.identity, bob.identity], mode: .reliable)
    network.run()
    #expect(carol.events.data == [[42]])
    #expect(alice.events.data == [[43]])
    #expect(bob.events.data == [[43]])
    // bob goes away: carol is separated from alice, and alice from carol.
    network.kill(bob.identity)
    network.run()
    #expect(alice.events.reason(for: bob.identity) == .hungUp)
    #expect(alice.events.reason(for: carol.identity) == .separated)
    #expect(carol.events.reason(for: alice.identity) == .separated)
    #expect(alice.engine.connectedPeers.isEmpty && carol.engine.connectedPeers.isEmpty)
  }

  @Test func aPeerThatLeavesIsSeenLeavingByTheWholeMesh() throws {
    let network = ScriptedNetwork()
    let alice = try TestPeer("alice", network: network)
    let bob = try TestPeer("bob", network: network)
    let carol = try TestPeer("carol", network: network)
    try connect(alice, bob, network: network)
    try connect(bob, carol, network: network)
    carol.engine.disconnect()
    network.run()
    #expect(bob.events.reason(for: carol.identity) == .left)
    #expect(alice.events.reason(for: carol.identity) == .left)
    #expect(carol.events.reason(for: alice.identity) == .disconnected)
    #expect(alice.engine.connectedPeers == [bob.identity])
    // The mesh behind a departed member stays whole: alice and bob still talk.
    try alice.engine.send([1], to: [bob.identity], mode: .reliable)
    network.run()
    #expect(bob.events.data == [[1]])
  }

  @Test func membersOfAnInvitedSessionJoinTheInviters() throws {
    let network = ScriptedNetwork()
    let alice = try TestPeer("alice", network: network)
    let bob = try TestPeer("bob", network: network)
    let carol = try TestPeer("carol", network: network)
    let dave = try TestPeer("dave", network: network)
    try connect(alice, bob, network: network)
    try connect(carol, dave, network: network)
    try connect(alice, carol, network: network)
    for peer in [alice, bob, carol, dave] {
      #expect(
        Set(peer.engine.connectedPeers)
          == Set([alice, bob, carol, dave].map(\.identity)).subtracting([peer.identity]))
    }
    // bob to dave crosses three links: bob → alice → carol → dave.
    try bob.engine.send([7], to: [dave.identity], mode: .reliable)
    network.run()
    #expect(dave.events.data == [[7]])
    #expect(throws: PeerError.alreadyConnected(dave.identity)) {
      try dave.engine.startAdvertising(policy: .always)
      try bob.engine.startBrowsing()
      network.run()
      try bob.engine.invite(dave.identity)
    }
  }
}

@Suite struct ImpersonationTests {
  @Test func aNeighbourCannotSpeakForAnotherPeer() throws {
    let network = ScriptedNetwork()
    let alice = try TestPeer("alice", network: network)
    let bob = try TestPeer("bob", network: network)
    let carol = try TestPeer("carol", network: network)
    try connect(alice, bob, network: network)
    try connect(alice, carol, network: network)
    // carol forges a leave and data as if bob sent them, straight to alice.
    let link = network.link(for: carol.identity)
    #expect(link.send(PeerFrame(kind: .leave, source: bob.identity), to: alice.identity))
    #expect(
      link.send(
        PeerFrame(kind: .data, source: bob.identity, destination: alice.identity.id, payload: [6]),
        to: alice.identity))
    network.run()
    #expect(alice.engine.state(of: bob.identity) == .connected)
    #expect(alice.events.data.isEmpty)
    let refusals = alice.events.events.filter { if case .refused = $0 { return true } else { return false } }
    #expect(refusals.count == 2)
  }
}
