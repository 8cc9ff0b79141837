import PeerSession
import Synchronization
import Testing

@testable import DevicePairing

/// The event handler of a ``LocalPeer`` costs the same on its thousandth event as on its first.
@Suite struct LocalPeerHandlerTests {
  /// A handler kept as `Mutex<EventHandler?>` was re-wrapped in two reabstraction thunks by every
  /// `withLock` that read it (an `inout` of a function type), so each event ran a chain of thunks
  /// two longer than the last: latency grew with every event, and the stack with it. The stack
  /// the handler is called on is measured from the caller's frame.
  @Test func theHandlerIsNotWrappedAgainOnEveryEvent() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let peer = try LocalPeer(name: PeerName("deep"), service: ServiceType("chat"), home: home.path)
    let deepest = Mutex<UInt>(0)
    let top = Mutex<UInt>(0)
    peer.setEventHandler { _ in
      var marker = 0
      let here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
      let base = top.withLock { $0 }
      deepest.withLock { $0 = max($0, base > here ? base - here : 0) }
    }
    for _ in 0..<1000 {
      var marker = 0
      let here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
      top.withLock { $0 = here }
      peer.deliver([.refused("an event the journal ignores")])
    }
    // Two thunks an event would be at least 32 KB (16 bytes a frame) by the thousandth.
    #expect(deepest.withLock { $0 } < 16 << 10)
  }
}
