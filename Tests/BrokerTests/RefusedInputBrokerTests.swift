import DevicePairing
import DeviceSession
import MQTTClient
import TestSupport
import Testing

/// Anyone who can publish on a pair's topics may have sent what a device over the broker
/// refuses: a message too large for its link, one that is not a frame (or not a presence), a
/// claim that is not one, anything on its push topic. Those are said as messages on their topic
/// whose sender is unknown, not as "a frame from the counterpart was refused"; a frame that
/// decodes on the counterpart's topic but is out of place still is the counterpart's.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct RefusedInputBrokerTests {
  static let frameRefusal = "a frame from the counterpart was refused"
  static let unknown = "(its sender is unknown)"

  /// The descriptions of the session failures among `deliveries`.
  static func failures(_ deliveries: [SessionDelivery]) -> [String] {
    deliveries.compactMap { if case .failure(let error) = $0 { error.description } else { nil } }
  }

  /// Waits (20 s) until, for each of `expected`, a failure of `deliveries` starts with it and
  /// says its sender is unknown; the failures then.
  static func waitForUnknown(_ expected: [String], in deliveries: Collector<SessionDelivery>) -> [String] {
    func complete(_ said: [String]) -> Bool {
      expected.allSatisfy { prefix in said.contains { $0.hasPrefix(prefix) && $0.hasSuffix(unknown) } }
    }
    let said = failures(deliveries.wait(seconds: 20) { complete(failures($0)) })
    for prefix in expected {
      #expect(said.contains { $0.hasPrefix(prefix) && $0.hasSuffix(unknown) }, "\(prefix): \(said)")
    }
    return said
  }

  /// A client of `broker` that publishes what the test says, as anyone on the broker can.
  static func intruder(_ broker: TestBroker) throws -> MQTTClient {
    let intruder = try MQTTClient(clientIdentifier: "intruder", cleanSession: true) { _ in }
    try intruder.connect(to: broker.address)
    return intruder
  }

  /// Waits (20 s) until the device `role` of `fixture`'s pair announced itself online: it
  /// subscribes to every topic it reads before it publishes that.
  static func waitForOnline(_ role: String, in fixture: PairFixture) throws {
    let online = try fixture.subscriber("wormhole/v1/pairs/pair/\(role)/presence", extra: ["-F", "%p"])
    try #require(
      online.lines.wait(seconds: 20) { $0.contains("online") }.contains("online"), "the \(role) is not online"
    )
  }

  @Test func aMessageTooLargeForTheLinkIsNotSaidAsTheCounterpartsFrame() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    // A watch whose link takes frames of at most 4 KiB, so that a message above its limit is cheap.
    let link = try MQTTDeviceLink(
      address: fixture.pair.watch, broker: fixture.broker.address, codec: FrameCodec(maximumFrameBytes: 4096),
      keepAlive: 5, heartbeat: .seconds(5))
    let watch = try SimulatedDevice(
      store: fixture.home.store, address: fixture.pair.watch, applicationGroup: "group.test", link: link)
    defer { watch.stop() }
    let deliveries = Collector<SessionDelivery>()
    watch.session.setDeliveryHandler { deliveries.append($0) }
    try watch.session.activate()
    try Self.waitForOnline("watch", in: fixture)
    let intruder = try Self.intruder(fixture.broker)
    defer { intruder.disconnect() }
    let topic = "wormhole/v1/pairs/pair/phone/transfer"
    #expect(
      try intruder.publish(
        [UInt8](repeating: 7, count: 10_000), to: topic, quality: .atLeastOnce, retained: false, timeout: 5))
    let said = Self.waitForUnknown(
      ["a message from the broker was refused: a message of 10000 bytes on \(topic), above the limit of"],
      in: deliveries)
    #expect(!said.contains { $0.contains(Self.frameRefusal) }, "\(said)")
  }

  @Test func whatDoesNotDecodeOnTheCounterpartsTopicsIsNotSaidAsItsFrame() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let (watch, _) = try fixture.reachableDevices()
    let intruder = try Self.intruder(fixture.broker)
    defer { intruder.disconnect() }
    let phone = "wormhole/v1/pairs/pair/phone/"
    let wrongKind = try FrameCodec().encode(
      DeviceFrame(kind: .message, identifier: "m", sender: .phone, time: 0))
    for (payload, kind) in [
      (bytes("garbage"), "transfer"), ([0xFF, 0xFE, 0x00], "presence"), ([0xC3, 0x28], "message"),
      (wrongKind, "transfer"),
    ] {
      #expect(
        try intruder.publish(payload, to: phone + kind, quality: .atLeastOnce, retained: false, timeout: 5))
    }
    let said = Self.waitForUnknown(
      [
        "a message on \(phone)transfer was refused: ",
        "a message on \(phone)presence was refused: it is neither online nor offline",
        "a message on \(phone)message was refused: ",
      ], in: watch.deliveries)
    // A frame that decoded, on the counterpart's topic, is the counterpart's, out of place.
    let all = Self.failures(
      watch.deliveries.wait(seconds: 20) { Self.failures($0).contains { $0.hasPrefix(Self.frameRefusal) } })
    #expect(
      all.contains(Self.frameRefusal + ": not a device frame: a frame of kind message on the transfer topic"),
      "\(all)")
    #expect(
      said.filter { $0.hasSuffix(Self.unknown) }.allSatisfy { !$0.contains(Self.frameRefusal) }, "\(said)")
    #expect(all.count == 4, "\(all)")
    #expect(watch.messages.isEmpty && watch.transfers.isEmpty)
    #expect(watch.session.isReachable)
  }

  @Test func aMalformedClaimOrPushRequestIsNotSaidAsTheCounterpartsFrame() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let watch = try fixture.device(fixture.pair.watch)
    try Self.waitForOnline("watch", in: fixture)
    let intruder = try Self.intruder(fixture.broker)
    defer { intruder.disconnect() }
    let own = "wormhole/v1/pairs/pair/watch/"
    // The push topic is for requests from anyone (push --broker), never the counterpart's.
    let message = try FrameCodec().encode(
      DeviceFrame(kind: .message, identifier: "r", sender: .phone, time: 0))
    for (payload, kind) in [(bytes("not a claim"), "claim"), (bytes("garbage"), "push"), (message, "push")] {
      #expect(
        try intruder.publish(payload, to: own + kind, quality: .atLeastOnce, retained: false, timeout: 5))
    }
    let said = Self.waitForUnknown(
      [
        "a message on \(own)claim was refused: a claim that is not TIME TOKEN",
        "a message on \(own)push was refused: a frame of 1734439522 bytes was refused",
        "a message on \(own)push was refused: a frame of kind message from the phone on the push topic",
      ], in: watch.deliveries)
    #expect(!said.contains { $0.contains(Self.frameRefusal) }, "\(said)")
    #expect(said.count == 3, "\(said)")
  }

  @Test func deviceRunSaysAStrayPresenceIsOfUnknownSender() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let intruder = try Self.intruder(fixture.broker)
    defer { intruder.disconnect() }
    // Retained, so the watch reads it when it subscribes, whenever that is.
    let topic = "wormhole/v1/pairs/pair/phone/presence"
    #expect(
      try intruder.publish([0xFF, 0x1B, 0x5B], to: topic, quality: .atLeastOnce, retained: true, timeout: 5))
    let watch = try WormholeChild([
      "device", "run", "--pair", "pair", "--role", "watch", "--broker", fixture.broker.url, "--home",
      fixture.home.path,
    ])
    defer { watch.stop() }
    let said =
      "wormhole-tui: a message on \(topic) was refused: it is neither online nor offline \(Self.unknown)"
    #expect(watch.waitForError(containing: said, seconds: 20), "\(watch.errorText)")
    #expect(!watch.errorText.contains(Self.frameRefusal), "\(watch.errorText)")
  }
}
