import PeerSession
import Testing

@Suite struct DataTests {
  @Test func reliableDataArrivesInOrderNoneLost() throws {
    let network = ScriptedNetwork()
    let sender = try TestPeer("phone", network: network)
    let receiver = try TestPeer("desk", network: network)
    try connect(sender, receiver, network: network)
    let messages = (0..<500).map { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    for message in messages { try sender.engine.send(message, to: [receiver.identity], mode: .reliable) }
    network.run()
    #expect(receiver.events.data == messages)
    #expect(!receiver.events.events.contains { if case .refused = $0 { return true } else { return false } })
  }

  @Test func aSendToAPeerNotConnectedFailsNamingIt() throws {
    let network = ScriptedNetwork()
    let sender = try TestPeer("phone", network: network)
    let receiver = try TestPeer("desk", network: network)
    let stranger = PeerIdentity(name: try PeerName("watch"))
    try connect(sender, receiver, network: network)
    #expect(throws: PeerError.notConnected([stranger])) {
      try sender.engine.send([1], to: [receiver.identity, stranger], mode: .reliable)
    }
    #expect(PeerError.notConnected([stranger]).description.hasPrefix("not connected: watch#"))
    // Nothing was sent to the connected one either.
    network.run()
    #expect(receiver.events.data.isEmpty)
    #expect(throws: PeerError.noPeers) { try sender.engine.send([1], to: [], mode: .unreliable) }
    // After the receiver hangs up, it is not connected.
    network.kill(receiver.identity)
    network.run()
    #expect(throws: PeerError.notConnected([receiver.identity])) {
      try sender.engine.send([1], to: [receiver.identity], mode: .reliable)
    }
  }

  /// A reliable send that failed gives its numbers back, also when it named one peer twice:
  /// the next frame the peer gets is not taken for a gap.
  @Test func aFailedSendToAPeerNamedTwiceGivesBothNumbersBack() throws {
    let network = ScriptedNetwork()
    let sender = try TestPeer("phone", network: network)
    let receiver = try TestPeer("desk", network: network)
    try connect(sender, receiver, network: network)
    network.refuseSends(true)
    #expect(throws: PeerError.notConnected([receiver.identity, receiver.identity])) {
      try sender.engine.send([1], to: [receiver.identity, receiver.identity], mode: .reliable)
    }
    network.refuseSends(false)
    try sender.engine.send([2], to: [receiver.identity], mode: .reliable)
    network.run()
    #expect(receiver.events.data == [[2]])
    #expect(network.sent.last?.sequence == 1)
  }

  @Test func unreliableDropsUnderAFloodAreCountedAndReported() throws {
    let network = ScriptedNetwork()
    let sender = try TestPeer("phone", network: network)
    let receiver = try TestPeer("desk", network: network, receiveQueueLimit: 16)
    try connect(sender, receiver, network: network)
    // The receiver's handler falls behind: nothing is taken while the flood arrives.
    receiver.engine.setEventHandler(nil)
    for index in 0..<1000 {
      try sender.engine.send([UInt8(truncatingIfNeeded: index)], to: [receiver.identity], mode: .unreliable)
    }
    network.run()
    #expect(receiver.engine.unreliableDrops == 984)
    let events = receiver.events
    receiver.engine.setEventHandler { events.record($0) }
    #expect(receiver.events.data.count == 16)
    let reports = receiver.events.events.compactMap {
      if case .unreliableDropped(let peer, let count) = $0 { return (peer, count) }
      return nil
    }
    #expect(reports.map(\.0) == [sender.identity])
    #expect(reports.map(\.1) == [984])
    // Reliable data under the same limit is never dropped.
    receiver.engine.setEventHandler(nil)
    for index in 0..<100 { try sender.engine.send([UInt8(index)], to: [receiver.identity], mode: .reliable) }
    network.run()
    receiver.events.clear()
    receiver.engine.setEventHandler { events.record($0) }
    #expect(receiver.events.data.count == 100)
    #expect(receiver.engine.unreliableDrops == 984)
  }
}
