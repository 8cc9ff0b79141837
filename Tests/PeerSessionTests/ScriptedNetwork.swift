import DeviceSession
import PeerSession
import Synchronization

/// Peers' links joined in memory: what one sends waits in a queue until the test delivers it
/// (``run()`` or ``step()``), on the test's thread, so every test is deterministic. Every frame
/// goes through the codec on its way, so the wire form is exercised by every scenario.
final class ScriptedNetwork: Sendable {
  private struct State {
    var handlers: [UInt64: @Sendable (PeerLinkEvent) -> Void] = [:]
    var identities: [UInt64: PeerIdentity] = [:]
    var advertisements: [UInt64: PeerAdvertisement] = [:]
    var browsing: [UInt64: ServiceType] = [:]
    var pending: [(UInt64, PeerLinkEvent)] = []
    var sent: [PeerFrame] = []
    /// Whether every send fails (a link whose broker refuses publications).
    var refusesSends = false
  }

  private let state = Mutex(State())
  let codec = PeerFrameCodec()

  /// The link of `identity` on this network.
  func link(for identity: PeerIdentity) -> Link { Link(network: self, identity: identity) }

  /// Makes every send fail (`true`) or work again.
  func refuseSends(_ refuses: Bool) { state.withLock { $0.refusesSends = refuses } }

  /// Every frame sent so far, in order.
  var sent: [PeerFrame] { state.withLock { $0.sent } }

  /// Delivers one waiting event; `false` when none waits.
  @discardableResult
  func step() -> Bool {
    let next = state.withLock { state -> ((@Sendable (PeerLinkEvent) -> Void), PeerLinkEvent)? in
      while !state.pending.isEmpty {
        let (target, event) = state.pending.removeFirst()
        if let handler = state.handlers[target] { return (handler, event) }
      }
      return nil
    }
    guard let (handler, event) = next else { return false }
    handler(event)
    return true
  }

  /// Delivers events until none waits.
  func run() { while step() {} }

  /// Ends `peer` as SIGKILL would: its advertisement goes, every other link hears it hang up.
  func kill(_ peer: PeerIdentity) {
    state.withLock { state in
      state.handlers[peer.id] = nil
      state.advertisements[peer.id] = nil
      state.browsing[peer.id] = nil
      state.pending.removeAll { $0.0 == peer.id }
      for other in state.handlers.keys.sorted() { state.pending.append((other, .hungUp(peer))) }
    }
  }

  fileprivate func start(_ identity: PeerIdentity, _ handler: @escaping @Sendable (PeerLinkEvent) -> Void) {
    state.withLock { state in
      state.handlers[identity.id] = handler
      state.identities[identity.id] = identity
    }
  }

  fileprivate func advertise(_ identity: PeerIdentity, _ advertisement: PeerAdvertisement?) {
    state.withLock { state in
      state.advertisements[identity.id] = advertisement
      for (browser, service) in state.browsing.sorted(by: { $0.key < $1.key }) where browser != identity.id {
        if let advertisement, advertisement.service == service {
          state.pending.append((browser, .announced(advertisement)))
        } else if advertisement == nil {
          state.pending.append((browser, .withdrawn(identity)))
        }
      }
    }
  }

  fileprivate func browse(_ identity: PeerIdentity, _ service: ServiceType?) {
    state.withLock { state in
      state.browsing[identity.id] = service
      guard let service else { return }
      for (advertiser, advertisement) in state.advertisements.sorted(by: { $0.key < $1.key })
      where advertiser != identity.id && advertisement.service == service {
        state.pending.append((identity.id, .announced(advertisement)))
      }
    }
  }

  fileprivate func send(_ frame: PeerFrame, from sender: PeerIdentity, to peer: PeerIdentity) -> Bool {
    guard let bytes = try? codec.encode(frame), let decoded = try? codec.decode(bytes), decoded == frame
    else {
      return false
    }
    return state.withLock { state in
      guard !state.refusesSends, state.handlers[peer.id] != nil, state.handlers[sender.id] != nil else {
        return false
      }
      state.sent.append(frame)
      state.pending.append((peer.id, .received(decoded, from: sender)))
      return true
    }
  }

  fileprivate func stop(_ identity: PeerIdentity) { kill(identity) }

  /// One peer's end of the network.
  struct Link: PeerLink {
    let network: ScriptedNetwork
    let identity: PeerIdentity

    func start(_ handler: @escaping @Sendable (PeerLinkEvent) -> Void) throws(LinkError) {
      network.start(identity, handler)
    }
    func advertise(_ advertisement: PeerAdvertisement?) { network.advertise(identity, advertisement) }
    func browse(_ service: ServiceType?) { network.browse(identity, service) }
    func send(_ frame: PeerFrame, to peer: PeerIdentity) -> Bool {
      network.send(frame, from: identity, to: peer)
    }
    func stop() { network.stop(identity) }
  }
}
