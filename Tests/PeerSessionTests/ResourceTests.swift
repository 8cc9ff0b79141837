import PeerSession
import Testing

@Suite struct ResourceTests {
  static let bytes = (0..<100).map { UInt8($0) }

  @Test func aResourceReportsProgressOnBothSidesAndCompletes() throws {
    let network = ScriptedNetwork()
    let sender = try TestPeer("phone", network: network, chunkBytes: 10, windowChunks: 2)
    let receiver = try TestPeer("desk", network: network)
    try connect(sender, receiver, network: network)
    let id = try sender.engine.sendResource(
      named: "photo.jpg", to: receiver.identity, source: BytesSource(bytes: Self.bytes))
    // The window holds two chunks until the receiver acknowledges.
    #expect(network.sent.filter { $0.kind == .resourceChunk }.count == 2)
    network.run()
    let received = receiver.events.resources
    guard case .started(let start) = received.first else {
      Issue.record("no start: \(received)")
      return
    }
    #expect(start.name == "photo.jpg" && start.total == 100 && start.bytes == 0 && start.id == id)
    let progress = received.compactMap {
      if case .progressed(let p) = $0 { return p.bytes } else { return nil }
    }
    #expect(progress == Array(stride(from: 10, through: 100, by: 10)).map { UInt64($0) })
    guard case .finished(let done, let location) = received.last else {
      Issue.record("not finished: \(received)")
      return
    }
    #expect(done.fraction == 1)
    #expect(receiver.storage.state.withLock { $0.finished[location ?? ""] } == Self.bytes)
    let sent = sender.events.resources
    let fractions = sent.compactMap {
      if case .progressed(let p) = $0 { return p.fraction } else { return nil }
    }
    #expect(fractions.first == 0.1 && fractions == fractions.sorted())
    guard case .finished(let finished, nil) = sent.last else {
      Issue.record("the sender did not finish: \(sent)")
      return
    }
    #expect(finished.bytes == 100 && finished.direction == .sending)
    #expect(sender.engine.resources.isEmpty && receiver.engine.resources.isEmpty)
  }

  @Test func anEmptyResourceFinishesAtOnce() throws {
    let network = ScriptedNetwork()
    let sender = try TestPeer("phone", network: network)
    let receiver = try TestPeer("desk", network: network)
    try connect(sender, receiver, network: network)
    try sender.engine.sendResource(named: "empty", to: receiver.identity, source: BytesSource(bytes: []))
    network.run()
    guard case .finished(_, let location?) = receiver.events.resources.last else {
      Issue.record("not finished: \(receiver.events.resources)")
      return
    }
    #expect(receiver.storage.state.withLock { $0.finished[location] } == [])
  }

  @Test func theReceiverCancelsAndTheSenderHearsIt() throws {
    let network = ScriptedNetwork()
    let sender = try TestPeer("phone", network: network, chunkBytes: 10, windowChunks: 1)
    let receiver = try TestPeer("desk", network: network)
    try connect(sender, receiver, network: network)
    let id = try sender.engine.sendResource(
      named: "f", to: receiver.identity, source: BytesSource(bytes: Self.bytes))
    while receiver.engine.resources.first.map({ $0.bytes < 30 }) ?? true { #expect(network.step()) }
    try receiver.engine.cancelResource(id)
    network.run()
    #expect(receiver.storage.state.withLock { $0.discarded } == [id])
    guard case .cancelled(let here, byPeer: false) = receiver.events.resources.last,
      case .cancelled(let there, byPeer: true) = sender.events.resources.last
    else {
      Issue.record("not cancelled: \(receiver.events.resources) \(sender.events.resources)")
      return
    }
    #expect(here.bytes == 30 && there.bytes < 100)
    #expect(throws: PeerError.resourceNotFound(id)) { try sender.engine.cancelResource(id) }
  }

  @Test func theSenderCancelsAndTheReceiverDiscards() throws {
    let network = ScriptedNetwork()
    let sender = try TestPeer("phone", network: network, chunkBytes: 10, windowChunks: 1)
    let receiver = try TestPeer("desk", network: network)
    try connect(sender, receiver, network: network)
    let id = try sender.engine.sendResource(
      named: "f", to: receiver.identity, source: BytesSource(bytes: Self.bytes))
    network.step()
    network.step()
    try sender.engine.cancelResource(id)
    network.run()
    #expect(receiver.storage.state.withLock { $0.discarded } == [id])
    guard case .cancelled(_, byPeer: true) = receiver.events.resources.last else {
      Issue.record("not cancelled: \(receiver.events.resources)")
      return
    }
    #expect(receiver.storage.state.withLock { $0.finished.isEmpty })
  }

  @Test func theReceiverFailsWhenTheSenderDiesMidTransfer() throws {
    let network = ScriptedNetwork()
    let sender = try TestPeer("phone", network: network, chunkBytes: 10, windowChunks: 1)
    let receiver = try TestPeer("desk", network: network)
    try connect(sender, receiver, network: network)
    let id = try sender.engine.sendResource(
      named: "f", to: receiver.identity, source: BytesSource(bytes: Self.bytes))
    while receiver.engine.resources.first.map({ $0.bytes < 40 }) ?? true { #expect(network.step()) }
    network.kill(sender.identity)
    network.run()
    guard case .failed(let progress, let reason) = receiver.events.resources.last else {
      Issue.record("not failed: \(receiver.events.resources)")
      return
    }
    #expect(progress.bytes == 40 && progress.id == id)
    #expect(reason.contains("the sender phone#") && reason.contains("went away"))
    #expect(receiver.storage.state.withLock { $0.discarded } == [id])
    #expect(receiver.events.reason(for: sender.identity) == .hungUp)
  }

  @Test func aResourceToAPeerNotConnectedIsRefused() throws {
    let network = ScriptedNetwork()
    let sender = try TestPeer("phone", network: network)
    let stranger = PeerIdentity(name: try PeerName("desk"))
    #expect(throws: PeerError.notConnected([stranger])) {
      try sender.engine.sendResource(named: "f", to: stranger, source: BytesSource(bytes: [1]))
    }
  }
}
