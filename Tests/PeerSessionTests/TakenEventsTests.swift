import PeerSession
import Synchronization
import Testing

/// Events taken by a consumer with a thread of its own (``PeerEngine/setEventsNotifier(_:)``,
/// ``PeerEngine/takeEvents(limit:)``): told once for what waits, not once per event; taken in
/// order; unreliable data beyond the receive queue dropped and counted; `nil` at the end.
@Suite struct TakenEventsTests {
  @Test func theConsumerIsToldOnceAndTakesEverythingInOrder() throws {
    let network = ScriptedNetwork()
    let sender = try TestPeer("phone", network: network)
    let receiver = try TestPeer("desk", network: network, receiveQueueLimit: 4)
    try connect(sender, receiver, network: network)
    receiver.engine.setEventHandler(nil)
    let told = Atomic<Int>(0)
    receiver.engine.setEventsNotifier { told.add(1, ordering: .relaxed) }
    for index in 0..<3 { try sender.engine.send([UInt8(index)], to: [receiver.identity], mode: .reliable) }
    for index in 0..<10 { try sender.engine.send([UInt8(index)], to: [receiver.identity], mode: .unreliable) }
    network.run()
    #expect(told.load(ordering: .relaxed) == 1)
    #expect(receiver.engine.hasWaitingEvents)
    var taken: [PeerEvent] = []
    while let events = receiver.engine.takeEvents(limit: 2), !events.isEmpty {
      #expect(events.count <= 2)
      taken += events
    }
    #expect(!receiver.engine.hasWaitingEvents)
    let reliable = (0..<3).map { PeerEvent.data([UInt8($0)], from: sender.identity, mode: .reliable) }
    #expect(Array(taken.prefix(3)) == reliable)
    #expect(taken.filter { if case .data(_, _, .unreliable) = $0 { true } else { false } }.count == 4)
    #expect(taken.contains(.unreliableDropped(from: sender.identity, count: 6)))
    // Found empty: the next event tells the consumer again.
    try sender.engine.send([9], to: [receiver.identity], mode: .reliable)
    network.run()
    #expect(told.load(ordering: .relaxed) == 2)
    #expect(receiver.engine.takeEvents(limit: 8) == [.data([9], from: sender.identity, mode: .reliable)])
    receiver.engine.stop()
    #expect(told.load(ordering: .relaxed) == 3)
    #expect(
      receiver.engine.takeEvents(limit: 8) == [
        .stateChanged(sender.identity, .notConnected, reason: .disconnected)
      ])
    #expect(receiver.engine.takeEvents(limit: 8) == nil)
  }
}
