import PeerSession
import Testing

@Suite struct EventStreamTests {
  @Test func eventsArriveAsAnAsyncSequenceAndEndWhenTheEngineStops() async throws {
    let network = ScriptedNetwork()
    let advertiser = try TestPeer("desk", network: network)
    let browser = try TestPeer("phone", network: network)
    browser.engine.setEventHandler(nil)
    try advertiser.engine.startAdvertising(policy: .always)
    try browser.engine.startBrowsing()
    network.run()
    var iterator = browser.engine.events.makeAsyncIterator()
    #expect(await iterator.next() == .found(advertiser.identity, info: DiscoveryInfo()))
    // An iterator that waits gets the event when it comes.
    let engine = browser.engine
    let waiting = Task {
      var iterator = engine.events.makeAsyncIterator()
      return await iterator.next()
    }
    advertiser.engine.stopAdvertising()
    network.run()
    #expect(await waiting.value == .lost(advertiser.identity))
    browser.engine.stop()
    #expect(await iterator.next() == nil)
  }

  @Test func aConsumerThatFallsBehindSeesDropsCounted() async throws {
    let network = ScriptedNetwork()
    let sender = try TestPeer("phone", network: network)
    let receiver = try TestPeer("desk", network: network, receiveQueueLimit: 4)
    try connect(sender, receiver, network: network)
    receiver.engine.setEventHandler(nil)
    for index in 0..<10 { try sender.engine.send([UInt8(index)], to: [receiver.identity], mode: .unreliable) }
    network.run()
    receiver.engine.stop()
    var events: [PeerEvent] = []
    for await event in receiver.engine.events { events.append(event) }
    #expect(events.filter { if case .data = $0 { return true } else { return false } }.count == 4)
    #expect(events.contains(.unreliableDropped(from: sender.identity, count: 6)))
    #expect(events.last == .stateChanged(sender.identity, .notConnected, reason: .disconnected))
  }

  @Test func aCancelledWaitEndsWithNil() async throws {
    let network = ScriptedNetwork()
    let peer = try TestPeer("phone", network: network)
    peer.engine.setEventHandler(nil)
    let engine = peer.engine
    let waiting = Task {
      var iterator = engine.events.makeAsyncIterator()
      return await iterator.next()
    }
    waiting.cancel()
    #expect(await waiting.value == nil)
  }
}
