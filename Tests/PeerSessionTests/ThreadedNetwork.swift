import DeviceSession
import Dispatch
import PeerSession
import Synchronization

/// Peers' links joined in memory, each peer's events delivered on a serial queue of its own, as
/// a real link delivers them on its thread: for the tests that the engine holds up when frames,
/// answers and timeouts arrive on several threads at once.
final class ThreadedNetwork: Sendable {
  private struct Endpoint {
    var handler: @Sendable (PeerLinkEvent) -> Void
    var queue: DispatchQueue
  }

  private struct State {
    var endpoints: [UInt64: Endpoint] = [:]
    var advertisements: [UInt64: PeerAdvertisement] = [:]
    var browsing: [UInt64: ServiceType] = [:]
  }

  private let state = Mutex(State())

  func link(for identity: PeerIdentity) -> Link { Link(network: self, identity: identity) }

  /// Runs on `target`'s queue; the lock is held so that events to one peer keep their order.
  private func deliver(_ event: PeerLinkEvent, to target: UInt64, in state: State) {
    guard let endpoint = state.endpoints[target] else { return }
    endpoint.queue.async { endpoint.handler(event) }
  }

  fileprivate func start(_ identity: PeerIdentity, _ handler: @escaping @Sendable (PeerLinkEvent) -> Void) {
    state.withLock {
      $0.endpoints[identity.id] = Endpoint(handler: handler, queue: DispatchQueue(label: "peer \(identity)"))
    }
  }

  fileprivate func advertise(_ identity: PeerIdentity, _ advertisement: PeerAdvertisement?) {
    state.withLock { state in
      state.advertisements[identity.id] = advertisement
      for (browser, service) in state.browsing where browser != identity.id {
        if let advertisement, advertisement.service == service {
          deliver(.announced(advertisement), to: browser, in: state)
        } else if advertisement == nil {
          deliver(.withdrawn(identity), to: browser, in: state)
        }
      }
    }
  }

  fileprivate func browse(_ identity: PeerIdentity, _ service: ServiceType?) {
    state.withLock { state in
      state.browsing[identity.id] = service
      guard let service else { return }
      for (advertiser, advertisement) in state.advertisements
      where advertiser != identity.id && advertisement.service == service {
        deliver(.announced(advertisement), to: identity.id, in: state)
      }
    }
  }

  fileprivate func send(_ frame: PeerFrame, from sender: PeerIdentity, to peer: PeerIdentity) -> Bool {
    state.withLock { state in
      guard state.endpoints[peer.id] != nil, state.endpoints[sender.id] != nil else { return false }
      deliver(.received(frame, from: sender), to: peer.id, in: state)
      return true
    }
  }

  fileprivate func stop(_ identity: PeerIdentity) {
    state.withLock { state in
      state.endpoints[identity.id] = nil
      state.advertisements[identity.id] = nil
      state.browsing[identity.id] = nil
      for other in state.endpoints.keys { deliver(.hungUp(identity), to: other, in: state) }
    }
  }

  struct Link: PeerLink {
    let network: ThreadedNetwork
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

/// Calls back on a global queue after the delay, as `DevicePairing`'s timer does.
struct DispatchTimer: SessionTimer {
  func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) {
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: action)
  }
}
