import DevicePairing
import DeviceSession
import Foundation
import Glibc
import MQTTClient
import Synchronization
import TestSupport
import Testing

/// Two simulated devices whose link is a broker: WatchConnectivity's semantics over MQTT.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct MQTTDeviceLinkTests {
  @Test func aMessageTravelsThroughTheBrokerAndItsReplyComesBack() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let (watch, phone) = try fixture.reachableDevices()
    let session = watch.session
    watch.session.setDeliveryHandler { delivery in
      watch.deliveries.append(delivery)
      if case .message(let message) = delivery {
        try? session.reply(to: message, with: message.payload + bytes("!"))
      }
    }
    let replies = Collector<Result<[UInt8], SessionError>>()
    try phone.session.sendMessage(bytes("ping"), identifier: "tap", replyTimeout: 10) { replies.append($0) }
    #expect(replies.wait(for: 1).first == .success(bytes("ping!")))
    #expect(watch.messages.map(\.identifier) == ["tap"])
    #expect(watch.messages.first?.payload == bytes("ping"))
  }

  @Test func aMessageToACounterpartThatIsNotOnlineFailsWith7007() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let pair = fixture.pair
    let phone = try fixture.device(pair.phone)
    #expect(throws: SessionError.notReachable) {
      try phone.session.sendMessage(bytes("x"), identifier: "tap")
    }
    let watch = try fixture.device(pair.watch)
    try #require(phone.waitReachable())
    // Stopped cleanly: the watch publishes its own "offline".
    watch.stop()
    #expect(phone.waitReachable(false))
    #expect(throws: SessionError.notReachable) {
      try phone.session.sendMessage(bytes("x"), identifier: "tap")
    }
    #expect(SessionError.notReachable.code == 7007)
  }

  @Test func aKilledDeviceIsAnnouncedOfflineByItsWillWithinTwoSeconds() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let (broker, home, pair) = (fixture.broker, fixture.home, fixture.pair)
    let phone = try fixture.device(pair.phone)
    let watch = try ChildProcess(
      wormholePath,
      arguments: [
        "device", "run", "--pair", "pair", "--role", "watch", "--broker", broker.url, "--home", home.path,
      ])
    defer { if watch.isRunning { watch.signal(SIGKILL) } }
    try #require(phone.waitReachable(seconds: 20), "the watch in its own process did not come online")
    let killed = ContinuousClock.now
    watch.signal(SIGKILL)
    watch.waitUntilExit()
    // The broker sees the connection close and publishes the watch's Will: "offline".
    #expect(phone.waitReachable(false, seconds: 2))
    #expect(ContinuousClock.now - killed < .seconds(2))
    #expect(throws: SessionError.notReachable) {
      try phone.session.sendMessage(bytes("x"), identifier: "tap")
    }
  }

  /// The broker goes away mid-stream: both devices hear the other unreachable (7007), the
  /// clients reconnect by themselves (backoff from 1 s) when it is back, and the pair works again.
  @Test func aBrokerRestartedMidStreamIsReconnectedToByBothDevices() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let broker = fixture.broker
    let (watch, phone) = try fixture.reachableDevices()
    broker.kill()
    #expect(phone.waitReachable(false) && watch.waitReachable(false))
    #expect(throws: SessionError.notReachable) {
      try phone.session.sendMessage(bytes("x"), identifier: "tap")
    }
    try broker.restart()
    #expect(phone.waitReachable(seconds: 30) && watch.waitReachable(seconds: 30))
    let replies = Collector<Result<[UInt8], SessionError>>()
    let session = watch.session
    watch.session.setDeliveryHandler { delivery in
      watch.deliveries.append(delivery)
      if case .message(let message) = delivery { try? session.reply(to: message, with: bytes("back")) }
    }
    try phone.session.sendMessage(bytes("again"), identifier: "tap", replyTimeout: 10) { replies.append($0) }
    #expect(replies.wait(for: 1).first == .success(bytes("back")))
  }

  @Test func aContextSetWhileTheWatchIsAwayArrivesNewestOnlyWhenItConnects() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let pair = fixture.pair
    let phone = try fixture.device(pair.phone)
    for value in ["1", "2", "3"] {
      #expect(try phone.session.updateApplicationContext(bytes(value), identifier: "level") != .unchanged)
    }
    let watch = try fixture.device(pair.watch)
    watch.deliveries.wait { _ in !watch.contexts.isEmpty }
    // Acknowledged: the phone no longer holds it as undelivered. The watch acknowledges a
    // transfer on the same topic after the context, so its finishing is the event to wait for.
    let marker = try phone.session.transferFile(bytes("after"), identifier: "marker")
    phone.deliveries.wait { _ in phone.finishedTransfers.contains(marker.id) }
    #expect(watch.contexts.count == 1)
    #expect(watch.contexts.first?.context.entries == ["level": bytes("3")])
    #expect(watch.session.receivedApplicationContext.version == 3)
    #expect(!phone.session.hasUndeliveredContext)
  }

  @Test func fiftyTransfersQueuedWhileTheWatchIsAwayArriveInOrderOnceEach() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let pair = fixture.pair
    let phone = try fixture.device(pair.phone)
    let sent = try (0..<50).map {
      try phone.session.transferFile(bytes("item \($0)"), identifier: "t\($0 % 3)")
    }
    let watch = try fixture.device(pair.watch)
    watch.deliveries.wait(seconds: 20) { _ in watch.transfers.count >= 50 }
    phone.deliveries.wait(seconds: 20) { _ in phone.finishedTransfers.count >= 50 }
    #expect(watch.transfers.map(\.id) == sent.map(\.id))
    #expect(watch.transfers.map(\.payload) == (0..<50).map { bytes("item \($0)") })
    #expect(Set(phone.finishedTransfers) == Set(sent.map(\.id)))
    #expect(phone.session.outstandingTransfers.isEmpty)
  }

  /// Transfers published while the receiver is away wait in its persistent session in the
  /// broker; sent again (as QoS 1 may), they are acknowledged and not delivered twice.
  @Test func transfersWaitInTheBrokerForTheReceiversSessionAndDuplicatesAreDropped() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let (broker, pair) = (fixture.broker, fixture.pair)
    // A bare phone link, so that frames go out exactly as the test says.
    let events = Collector<LinkEvent>()
    let link = try MQTTDeviceLink(address: pair.phone, broker: broker.address)
    try link.start { events.append($0) }
    defer { link.stop() }
    func frame(_ id: UInt64) -> DeviceFrame {
      DeviceFrame(
        kind: .transfer, identifier: "t", transferID: id, sender: .phone, time: 0, payload: bytes("\(id)"))
    }
    // The watch's first run makes its persistent session (its subscriptions) in the broker: it
    // subscribes before it announces itself online, on one connection.
    let first = try fixture.device(pair.watch)
    try #require(events.wait { $0.contains(.reachabilityChanged(true)) }.contains(.reachabilityChanged(true)))
    first.stop()
    try #require(events.wait { $0.last == .reachabilityChanged(false) }.last == .reachabilityChanged(false))
    // Not reachable (the watch is away), yet the transfers are taken: the broker queues them.
    for id in 1...20 as ClosedRange<UInt64> { #expect(link.send(frame(id))) }
    #expect(!link.send(DeviceFrame(kind: .message, identifier: "m", sender: .phone, time: 0)))
    let watch = try fixture.device(pair.watch)
    watch.deliveries.wait(seconds: 20) { _ in watch.transfers.count >= 20 }
    #expect(watch.transfers.map(\.id) == Array(1...20))
    // A redelivery of ids already stored: acknowledged again, never delivered again.
    for id in 18...20 as ClosedRange<UInt64> { #expect(link.send(frame(id))) }
    let acknowledged = { (values: [LinkEvent]) -> [UInt64] in
      values.compactMap {
        if case .received(let frame) = $0, frame.kind == .transferAcknowledgement { return frame.transferID }
        return nil
      }
    }
    let seen = events.wait(seconds: 20) { acknowledged($0).count >= 23 }
    #expect(acknowledged(seen).sorted() == (Array(1...20) + [18, 19, 20]).sorted())
    #expect(watch.transfers.map(\.id) == Array(1...20))
  }

  /// The layout the README documents, as `mosquitto_sub` sees it.
  @Test func mosquittoSubSeesTheDocumentedTopics() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let pair = fixture.pair
    let presence = try fixture.subscriber("wormhole/v1/pairs/+/+/presence", extra: ["-F", "%t %r %p"])
    let frames = try fixture.subscriber("wormhole/v1/#", extra: ["-q", "1", "-F", "%t %q %r %l"])
    let phone = try fixture.device(pair.phone)
    // Both subscribers are live once they see the phone come online.
    // (Live or retained: the phone may come online before or after they subscribe.)
    let phoneOnline = try #require(
      presence.lines.wait { $0.contains { $0.hasPrefix("wormhole/v1/pairs/pair/phone/presence ") } }.first)
    #expect(phoneOnline.hasSuffix(" online"))
    frames.lines.wait { $0.contains { $0.hasPrefix("wormhole/v1/pairs/pair/phone/presence 1 ") } }
    let watch = try fixture.device(pair.watch)
    try #require(phone.waitReachable())
    try phone.session.sendMessage(bytes("hello"), identifier: "tap")
    try phone.session.updateApplicationContext(bytes("1"), identifier: "level")
    try phone.session.transferFile(bytes("file"), identifier: "doc")
    watch.deliveries.wait { _ in !watch.transfers.isEmpty && !watch.contexts.isEmpty }
    phone.deliveries.wait { _ in !phone.finishedTransfers.isEmpty }
    watch.stop()
    presence.lines.wait { $0.contains("wormhole/v1/pairs/pair/watch/presence 0 offline") }
    phone.stop()
    // Frames are the codec's bytes: 4 of length, 36 of header, the identifier, the payload.
    let expected = [
      "wormhole/v1/pairs/pair/phone/message 1 0 \(4 + 36 + 3 + 5)",
      "wormhole/v1/pairs/pair/phone/context 1 0",
      "wormhole/v1/pairs/pair/phone/transfer 1 0 \(4 + 36 + 3 + 4)",
      "wormhole/v1/pairs/pair/watch/ack 1 0 40",
    ]
    let lines = frames.lines.wait { lines in
      expected.allSatisfy { prefix in lines.contains { $0.hasPrefix(prefix) } }
    }
    for prefix in expected { #expect(lines.contains { $0.hasPrefix(prefix) }, "\(prefix)") }
    #expect(presence.lines.values.contains("wormhole/v1/pairs/pair/watch/presence 0 online"))
  }

  /// Anything can publish on a device's topics: what is not a frame of the topic's kinds from
  /// the counterpart is refused (reported, never delivered), and the session goes on.
  @Test func whatArrivesFromTheBrokerIsCheckedBeforeTheSessionSeesIt() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let (broker, pair) = (fixture.broker, fixture.pair)
    // Each side reachable to the other: the phone sends below (under load it had not yet heard
    // the watch's presence when only the watch had heard the phone's: 7007).
    let (watch, phone) = try fixture.reachableDevices()
    let intruder = try MQTTClient(clientIdentifier: "intruder", cleanSession: true) { _ in }
    try intruder.connect(to: broker.address)
    defer { intruder.disconnect() }
    let topics = try DeviceTopics(address: pair.phone)
    let codec = FrameCodec()
    let ownRole = try codec.encode(DeviceFrame(kind: .message, identifier: "m", sender: .watch, time: 0))
    let wrongTopic = try codec.encode(DeviceFrame(kind: .message, identifier: "m", sender: .phone, time: 0))
    for (payload, kind) in [
      (bytes("garbage"), DeviceTopics.Kind.transfer), (ownRole, .message), (wrongTopic, .transfer),
      (bytes("maybe"), .presence),
    ] {
      #expect(
        try intruder.publish(
          payload, to: topics.topic(kind), quality: .atLeastOnce, retained: false, timeout: 5))
    }
    let failures = { (values: [SessionDelivery]) in
      values.filter { if case .failure = $0 { true } else { false } }
    }
    let seen = watch.deliveries.wait { failures($0).count >= 4 }
    #expect(failures(seen).count == 4)
    #expect(watch.messages.isEmpty && watch.transfers.isEmpty)
    // The real phone still reaches the watch.
    try phone.session.sendMessage(bytes("hello"), identifier: "tap")
    watch.deliveries.wait { _ in !watch.messages.isEmpty }
    #expect(watch.messages.map(\.payload) == [bytes("hello")])
    phone.stop()
  }

  @Test func aPairNameAnMqttTopicCannotHoldIsRefused() throws {
    let address = DeviceAddress(pair: try PairName("a+b"), role: .phone)
    #expect(throws: LinkError.self) { try DeviceTopics(address: address) }
    let topics = try DeviceTopics(address: DeviceAddress(pair: try PairName("p"), role: .watch))
    #expect(topics.topic(.presence) == "wormhole/v1/pairs/p/watch/presence")
    #expect(topics.counterpart.kind(of: "wormhole/v1/pairs/p/phone/transfer") == .transfer)
    #expect(topics.kind(of: "wormhole/v1/pairs/p/phone/transfer") == nil)
    #expect(topics.kind(of: "wormhole/v1/pairs/p/watch/other") == nil)
  }
}

/// `device run --broker` as a user runs it.
@Suite struct DeviceBrokerOptionTests {
  @Test func withoutLibmosquittoTheOptionSaysWhatToInstallAndExits2() throws {
    let home = BrokerHome()
    defer { home.remove() }
    _ = try home.makePair()
    var environment = ProcessInfo.processInfo.environment
    environment["WORMHOLE_LIBMOSQUITTO"] = home.path + "/libmosquitto.so.1"
    let process = try ChildProcess(
      wormholePath,
      arguments: [
        "device", "run", "--pair", "pair", "--role", "watch", "--broker", "mqtt://127.0.0.1:1", "--home",
        home.path,
      ],
      environment: environment, standardError: .file(home.path + "/errors"))
    process.waitUntilExit()
    let text = home.directory.contents("errors") ?? ""
    #expect(process.terminationStatus == 2)
    #expect(text.contains("apt install libmosquitto1"), "\(text)")
  }

  @Test func aBadBrokerAddressIsAUsageError() throws {
    let process = try ChildProcess(
      wormholePath, arguments: ["device", "run", "--pair", "p", "--role", "watch", "--broker", "http://x"])
    process.waitUntilExit()
    #expect(process.terminationStatus == 2)
  }
}
