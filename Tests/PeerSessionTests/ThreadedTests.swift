import Dispatch
import PeerSession
import TestSupport
import Testing

/// The engine with every peer's events on a thread of its own, sends from many threads at once.
@Suite struct ThreadedTests {
  struct Peer {
    let identity: PeerIdentity
    let engine: PeerEngine
    let events = Collector<PeerEvent>()

    init(_ name: String, network: ThreadedNetwork) throws {
      identity = PeerIdentity(name: try PeerName(name))
      engine = PeerEngine(
        local: identity, service: try ServiceType("chat"), link: network.link(for: identity),
        timer: DispatchTimer(), storage: MemoryStorage())
      let events = events
      engine.setEventHandler { events.append($0) }
      try engine.start()
    }

    func states(of peer: PeerIdentity) -> [PeerConnectionState] {
      events.values.compactMap {
        if case .stateChanged(peer, let state, _) = $0 { return state }
        return nil
      }
    }

    func data(from peer: PeerIdentity) -> [[UInt8]] {
      events.values.compactMap {
        if case .data(let bytes, peer, _) = $0 { return bytes }
        return nil
      }
    }
  }

  @Test func concurrentInvitationsFormOneMeshAndReliableDataKeepsItsOrder() throws {
    let network = ThreadedNetwork()
    let hub = try Peer("hub", network: network)
    let spokes = try (0..<3).map { try Peer("spoke\($0)", network: network) }
    try hub.engine.startAdvertising(policy: .always)
    for spoke in spokes { try spoke.engine.startBrowsing() }
    for spoke in spokes {
      spoke.events.wait { $0.contains(.found(hub.identity, info: DiscoveryInfo())) }
    }
    // All three invite the hub at once, from three threads.
    let failures = Collector<String>()
    DispatchQueue.concurrentPerform(iterations: spokes.count) { index in
      do { try spokes[index].engine.invite(hub.identity, timeout: 30) } catch { failures.append("\(error)") }
    }
    #expect(failures.values.isEmpty)
    for spoke in spokes {
      spoke.events.wait { _ in spoke.engine.connectedPeers.count == 3 }
      #expect(spoke.engine.connectedPeers.count == 3)
      // The handler saw connecting before connected, whichever thread the answer came on.
      #expect(spoke.states(of: hub.identity) == [.connecting, .connected])
    }
    // Every spoke sends 200 numbered messages to every other peer, all at once.
    let everyone = [hub] + spokes
    DispatchQueue.concurrentPerform(iterations: spokes.count) { index in
      let spoke = spokes[index]
      let targets = everyone.map(\.identity).filter { $0 != spoke.identity }
      for number in 0..<200 {
        do {
          try spoke.engine.send([UInt8(index), UInt8(number)], to: targets, mode: .reliable)
        } catch {
          failures.append("\(error)")
        }
      }
    }
    #expect(failures.values.isEmpty)
    for receiver in everyone {
      for (index, spoke) in spokes.enumerated() where spoke.identity != receiver.identity {
        receiver.events.wait { _ in receiver.data(from: spoke.identity).count >= 200 }
        #expect(receiver.data(from: spoke.identity) == (0..<200).map { [UInt8(index), UInt8($0)] })
      }
    }
    for peer in everyone { peer.engine.stop() }
  }
}
