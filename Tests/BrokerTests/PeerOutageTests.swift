import DevicePairing
import Foundation
import Glibc
import MQTTClient
import PeerSession
import TestSupport
import Testing

/// The rule for a broker that goes away under a connected session (``MQTTPeerLink/outageLimit``):
/// an outage up to the limit ends no session, however many heartbeats it lasts, and loses no
/// frame a send took; one beyond it ends the session on both sides, at the limit, with no hang.
/// And a session one side ends while the other cannot see it (a peer frozen, or announced gone
/// by someone else) ends on the other side too.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct PeerOutageTests {
  /// The heartbeat of these tests' connected peers: three missed are 6 s, shorter than every
  /// outage here, and long enough that a test machine under load does not stall a peer for it.
  static let heartbeat = Duration.seconds(2)

  /// ``BrokerPeer/connectedPair(_:homes:heartbeat:outageLimit:)`` with this suite's heartbeat.
  static func connectedPair(_ broker: TestBroker, homes: (BrokerHome, BrokerHome), outageLimit: Duration)
    throws -> (watch: BrokerPeer, phone: BrokerPeer)
  {
    try BrokerPeer.connectedPair(broker, homes: homes, heartbeat: heartbeat, outageLimit: outageLimit)
  }

  /// Sends `text` to the watch reliably, again every 50 ms while the phone refuses it (it has not
  /// heard the watch since reconnecting), for up to 20 s (a failure bound only); the last answer.
  static func sendOnceTaken(_ phone: BrokerPeer, _ text: String) -> PeerControlMessage {
    let deadline = Date() + 20
    var answer = phone.request(["send", "watch", "reliable", text])
    while answer.text(0) != "ok" && Date() < deadline {
      usleep(50_000)
      answer = phone.request(["send", "watch", "reliable", text])
    }
    return answer
  }

  /// Waits until neither link is connected to the broker (no event says so: the links' state does).
  static func waitDisconnected(_ peers: [BrokerPeer]) {
    let deadline = Date() + 5
    while peers.contains(where: { $0.link?.isConnected == true }) && Date() < deadline { usleep(10_000) }
  }

  static func hungUp(_ peer: PeerIdentity) -> PeerEvent {
    .stateChanged(peer, .notConnected, reason: .hungUp)
  }

  static func endsSession(_ event: PeerEvent) -> Bool {
    if case .stateChanged(_, .notConnected, _) = event { true } else { false }
  }

  /// The broker is down for longer than three heartbeats (about 8 s against 6 s), within the
  /// limit (30 s): nobody is taken for gone, sends during the outage are refused, and once both
  /// are back the session goes on; a persistent broker loses nothing a send took.
  @Test func aSessionOutlivesABrokerOutageLongerThanThreeHeartbeatsWithinTheLimit() throws {
    let broker = try TestBroker(persistent: true)
    defer { broker.stop() }
    let homes = (BrokerHome(), BrokerHome())
    defer { [homes.0, homes.1].forEach { $0.remove() } }
    let (watch, phone) = try Self.connectedPair(broker, homes: homes, outageLimit: .seconds(30))
    defer { [watch, phone].forEach { $0.stop() } }
    #expect(phone.request(["send", "watch", "reliable", "1"]).text(0) == "ok")
    #expect(!watch.events.wait { $0.contains { $0.dataPayload != nil } }.isEmpty)
    broker.kill()
    let killed = ContinuousClock.now
    Self.waitDisconnected([watch, phone])
    let during = phone.request(["send", "watch", "reliable", "2"])
    #expect(during.text(0) == "error" && during.text(2).contains("not connected"), "\(during.text(2))")
    // The outage has to outlast three heartbeats, which only time does: no event to wait for.
    let silence = Self.heartbeat * MQTTPeerLink.missedHeartbeats
    while ContinuousClock.now - killed < silence + .seconds(2) { usleep(50_000) }
    try broker.restart()
    // Sends are taken again once the phone has heard the watch since reconnecting.
    let after = Self.sendOnceTaken(phone, "3")
    #expect(after.text(0) == "ok", "\(after.text(2))")
    #expect(phone.request(["send", "watch", "reliable", "4"]).text(0) == "ok")
    let texts = {
      watch.events.wait { $0.compactMap(\.dataPayload).count >= 3 }.compactMap(\.dataPayload)
        .map { String(decoding: $0, as: UTF8.self) }
    }
    #expect(texts() == ["1", "3", "4"], "\(watch.events.values) \(phone.events.values)")
    #expect(!watch.events.values.contains(where: Self.endsSession))
    #expect(!phone.events.values.contains(where: Self.endsSession))
    #expect(!watch.events.values.contains { $0.refusal?.contains("out of order") == true })
    #expect(phone.peer.engine.connectedPeers == [watch.identity])
    #expect(watch.peer.engine.connectedPeers == [phone.identity])
  }

  /// A limit of 12 s and an outage of 6.5 s, within it: the links try again every 3 s at most
  /// (a quarter of the limit), so they are back by about 9 s and the session goes on.
  /// libmosquitto's quadratic backoff tried at 1, 5 and then 14 s after the loss, past the
  /// limit, and both sides hung up.
  @Test func anOutageWithinTheLimitIsReconnectedInTime() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let homes = (BrokerHome(), BrokerHome())
    defer { [homes.0, homes.1].forEach { $0.remove() } }
    let (watch, phone) = try Self.connectedPair(broker, homes: homes, outageLimit: .seconds(12))
    defer { [watch, phone].forEach { $0.stop() } }
    #expect(MQTTPeerLink.reconnectDelayLimit(outageLimit: .seconds(12)) == 3)
    broker.kill()
    let killed = ContinuousClock.now
    Self.waitDisconnected([watch, phone])
    // An outage of a given length, which only time makes: no event to wait for.
    while ContinuousClock.now - killed < .milliseconds(6_500) { usleep(50_000) }
    try broker.restart()
    let after = Self.sendOnceTaken(phone, "back")
    #expect(after.text(0) == "ok", "\(after.text(2))")
    #expect(!watch.events.wait { $0.contains { $0.dataPayload != nil } }.isEmpty)
    #expect(!watch.events.values.contains(where: Self.endsSession), "\(watch.events.values)")
    #expect(!phone.events.values.contains(where: Self.endsSession), "\(phone.events.values)")
    #expect(phone.peer.engine.connectedPeers == [watch.identity])
  }

  /// The broker stays down beyond the limit (8 s, longer than three heartbeats, so the limit is
  /// what decides): both peers end the session at the limit, not before, and neither hangs; the
  /// broker back, they find each other again and can be connected anew.
  @Test func anOutageBeyondTheLimitEndsTheSessionOnBothSidesAtTheLimit() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let homes = (BrokerHome(), BrokerHome())
    defer { [homes.0, homes.1].forEach { $0.remove() } }
    let limit = Duration.seconds(8)
    let (watch, phone) = try Self.connectedPair(broker, homes: homes, outageLimit: limit)
    defer { [watch, phone].forEach { $0.stop() } }
    broker.kill()
    let killed = ContinuousClock.now
    let phoneEnded = Self.hungUp(phone.identity)
    let watchEnded = Self.hungUp(watch.identity)
    #expect(watch.events.wait(seconds: 20) { $0.contains(phoneEnded) }.contains(phoneEnded))
    #expect(phone.events.wait(seconds: 20) { $0.contains(watchEnded) }.contains(watchEnded))
    let ended = ContinuousClock.now - killed
    #expect(ended > limit - .milliseconds(300) && ended < limit + .seconds(4), "\(ended)")
    #expect(phone.lose(watch.identity, seconds: 1))
    #expect(phone.peer.engine.connectedPeers.isEmpty && watch.peer.engine.connectedPeers.isEmpty)
    try broker.restart()
    let found = PeerEvent.found(watch.identity, info: DiscoveryInfo())
    #expect(
      phone.events.wait(seconds: 20) { $0.filter { $0 == found }.count >= 2 }.filter { $0 == found }.count
        == 2)
    let again = phone.request(["invite", "watch", "", "10"])
    #expect(again.text(0) == "ok", "\(again.text(2))")
    #expect(phone.request(["send", "watch", "reliable", "again"]).text(0) == "ok")
    #expect(
      watch.events.wait { $0.contains { $0.dataPayload == Array("again".utf8) } }.contains {
        $0.dataPayload == Array("again".utf8)
      })
  }

  /// A peer the phone is connected to falls silent (a client of the test's own, which invited
  /// the phone and then stops beating, as a frozen process would): the phone hangs it up after
  /// three heartbeats and tells it so, a `leave` in its inbox, so that a peer frozen or cut off
  /// finds its session ended when it comes back rather than speaking into a session that is gone.
  @Test func aPeerHungUpForItsSilenceIsSentALeave() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let home = BrokerHome()
    defer { home.remove() }
    // A beat of 1 s: the ghost is silent after 3 s (only the phone's judgement of it matters).
    let phone = try BrokerPeer(
      "phone", home: home.path, broker: broker, advertise: true, heartbeat: .seconds(1))
    defer { phone.stop() }
    let ghost = try #require(PeerIdentity(name: try PeerName("ghost"), id: 0x6_0057))
    let codec = PeerFrameCodec()
    let frames = Collector<PeerFrame>()
    let client = try MQTTClient(clientIdentifier: "ghost", cleanSession: true) { event in
      if case .received(let message) = event, let frame = try? codec.decode(message.payload) {
        frames.append(frame)
      }
    }
    try client.connect(to: broker.address)
    defer { client.disconnect() }
    let base = "wormhole/v1/peers/chat/"
    try client.subscribe(base + PeerDirectory.hex(ghost.id) + "/inbox/+", quality: .atLeastOnce)
    // The phone publishes its presence once it has subscribed: from then on it hears the ghost.
    try client.subscribe(base + PeerDirectory.hex(phone.identity.id) + "/presence", quality: .atLeastOnce)
    let advertised = { (frames: [PeerFrame]) in frames.contains { $0.kind == .advertisement } }
    #expect(advertised(frames.wait { advertised($0) }))
    // Heard live once (its advertisement), then an invitation, which the phone accepts.
    let presence = try codec.encode(PeerAdvertisement(peer: ghost, service: try ServiceType("chat")).frame)
    #expect(
      try client.publish(
        presence, to: base + PeerDirectory.hex(ghost.id) + "/presence", quality: .atMostOnce, retained: false,
        timeout: 5))
    let invitation = try codec.encode(
      PeerFrame(kind: .invitation, source: ghost, sequence: 1, value: 1))
    let inbox = base + PeerDirectory.hex(phone.identity.id) + "/inbox/" + PeerDirectory.hex(ghost.id)
    #expect(try client.publish(invitation, to: inbox, quality: .atLeastOnce, retained: false, timeout: 5))
    let connected = PeerEvent.stateChanged(ghost, .connected, reason: nil)
    #expect(phone.events.wait { $0.contains(connected) }.contains(connected))
    #expect(frames.wait { $0.contains { $0.kind == .answer } }.contains { $0.kind == .answer })
    let gone = Self.hungUp(ghost)
    #expect(phone.events.wait(seconds: 10) { $0.contains(gone) }.contains(gone))
    let leave = frames.wait(seconds: 5) { $0.contains { $0.kind == .leave } }.first { $0.kind == .leave }
    #expect(leave?.source == phone.identity)
    // Heard live again (back from a cut-off that outlived its session, the first leave missed):
    // told again, before anything else it may be sent.
    #expect(
      try client.publish(
        presence, to: base + PeerDirectory.hex(ghost.id) + "/presence", quality: .atMostOnce, retained: false,
        timeout: 5))
    let leaves = { (frames: [PeerFrame]) in frames.filter { $0.kind == .leave }.count }
    #expect(leaves(frames.wait(seconds: 5) { leaves($0) >= 2 }) == 2)
  }

  /// Someone empties the watch's presence (as the broker's Will does for a peer cut off alone):
  /// every peer that heard it took the watch for gone and ended its session with it, so the
  /// watch, hearing it on its own topic, ends its sessions too (and publishes its presence
  /// again) instead of speaking into sessions that are gone.
  @Test func aPeerWhosePresenceWasEmptiedEndsItsSessionsAsItsPeersDid() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let homes = (BrokerHome(), BrokerHome())
    defer { [homes.0, homes.1].forEach { $0.remove() } }
    let (watch, phone) = try Self.connectedPair(broker, homes: homes, outageLimit: .seconds(20))
    defer { [watch, phone].forEach { $0.stop() } }
    let publisher = try MQTTClient(clientIdentifier: "will", cleanSession: true) { _ in }
    try publisher.connect(to: broker.address)
    defer { publisher.disconnect() }
    let topic = "wormhole/v1/peers/chat/\(PeerDirectory.hex(watch.identity.id))/presence"
    #expect(try publisher.publish([], to: topic, quality: .atLeastOnce, retained: true, timeout: 5))
    let watchEnded = Self.hungUp(watch.identity)
    let phoneEnded = Self.hungUp(phone.identity)
    #expect(phone.events.wait { $0.contains(watchEnded) }.contains(watchEnded))
    #expect(watch.events.wait { $0.contains(phoneEnded) }.contains(phoneEnded))
    #expect(watch.peer.engine.connectedPeers.isEmpty)
    // Published again: the phone finds it again, and may invite it anew.
    let found = PeerEvent.found(watch.identity, info: DiscoveryInfo())
    #expect(phone.events.wait { $0.filter { $0 == found }.count >= 2 }.filter { $0 == found }.count == 2)
  }
}
