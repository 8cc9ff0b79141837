import DevicePairing
import Foundation
import Glibc
import PeerSession
import TestSupport

/// A peer of this process whose link is a test broker (``MQTTPeerLink``), under a home of its
/// own (a "machine"), with its events collected.
final class BrokerPeer: Sendable {
  let peer: LocalPeer
  let events = Collector<PeerEvent>()

  init(
    _ name: String, home: String, broker: TestBroker, service: String = "chat", advertise: Bool = false,
    info: [String: String] = [:], browse: Bool = false, policy: InvitationPolicy = .always,
    receiveQueueLimit: Int = 256, keepAlive: Int = 10, heartbeat: Duration? = nil,
    outageLimit: Duration? = nil, handler: (@Sendable (PeerEvent) -> Void)? = nil,
    beforeStart: (PeerIdentity) throws -> Void = { _ in }
  ) throws {
    peer = try LocalPeer(
      name: try PeerName(name), service: try ServiceType(service), home: home, broker: broker.address,
      receiveQueueLimit: receiveQueueLimit, keepAlive: keepAlive, heartbeat: heartbeat,
      outageLimit: outageLimit)
    let events = self.events
    peer.setEventHandler { event in
      handler?(event)
      events.append(event)
    }
    try beforeStart(peer.identity)
    try peer.start(advertising: advertise ? try DiscoveryInfo(info) : nil, policy: policy, browsing: browse)
  }

  var identity: PeerIdentity { peer.identity }
  var link: MQTTPeerLink? { peer.link as? MQTTPeerLink }

  /// Waits until `other` is found (with `info`); whether it was.
  func find(_ other: PeerIdentity, info: [String: String] = [:], seconds: Double = 10) -> Bool {
    guard let info = try? DiscoveryInfo(info) else { return false }
    let found = PeerEvent.found(other, info: info)
    return events.wait(seconds: seconds) { $0.contains(found) }.contains(found)
  }

  /// Waits until a peer named `name` is found; its identity.
  func find(named name: String, seconds: Double = 10) -> PeerIdentity? {
    func match(_ event: PeerEvent) -> PeerIdentity? {
      if case .found(let peer, _) = event, peer.name.text == name { return peer }
      return nil
    }
    return events.wait(seconds: seconds) { $0.contains { match($0) != nil } }.lazy.compactMap(match).first
  }

  /// Waits until `other` is lost; whether it was.
  func lose(_ other: PeerIdentity, seconds: Double = 10) -> Bool {
    events.wait(seconds: seconds) { $0.contains(.lost(other)) }.contains(.lost(other))
  }

  /// A control request, as the verbs send it.
  func request(_ fields: [String]) -> PeerControlMessage { peer.perform(PeerControlMessage(text: fields)) }

  func stop() { peer.stop() }

  /// `watch` advertising and `phone` browsing, each under a home of its own, connected by the
  /// phone's invitation; throws when the phone does not find or connect the watch.
  static func connectedPair(
    _ broker: TestBroker, homes: (BrokerHome, BrokerHome), heartbeat: Duration? = nil,
    outageLimit: Duration? = nil
  ) throws -> (watch: BrokerPeer, phone: BrokerPeer) {
    let watch = try BrokerPeer(
      "watch", home: homes.0.path, broker: broker, advertise: true, heartbeat: heartbeat,
      outageLimit: outageLimit)
    let phone = try BrokerPeer(
      "phone", home: homes.1.path, broker: broker, browse: true, heartbeat: heartbeat,
      outageLimit: outageLimit)
    guard phone.find(watch.identity), phone.request(["invite", "watch", "", "10"]).text(0) == "ok" else {
      watch.stop()
      phone.stop()
      throw BrokerTestError("the phone did not find and connect the watch")
    }
    return (watch, phone)
  }
}

extension PeerEvent {
  var dataPayload: [UInt8]? { if case .data(let bytes, _, _) = self { bytes } else { nil } }
  var droppedCount: Int { if case .unreliableDropped(_, let count) = self { count } else { 0 } }
  var refusal: String? { if case .refused(let text) = self { text } else { nil } }
}
