import DevicePairing
import DeviceRouting
import DeviceSession
import Foundation
import Glibc
import MQTTClient
import TestSupport
import Testing

/// Pushes and deep links through the broker: published to the device's `push` topic, routed by
/// the device as a push to its control socket is, answered on its `routed` topic.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct BrokerRoutingTests {
  @Test func aPushAndADeepLinkReachADeviceThroughTheBrokerAndAnswerTheRouteTaken() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let (broker, pair) = (fixture.broker, fixture.pair)
    let (watch, _) = try fixture.reachableDevices()
    let printed = Collector<DeviceRoutes.Printed>()
    let file = try RoutesFile.parse(
      "push greeting print\ndeep-link demo://open/.* print\n", file: "app.routes")
    watch.link.route(with: DeviceRoutes(routes: file, device: watch.device) { printed.append($0) })

    let push = try PushNotification(json: #"{"aps":{"notification_id":"greeting","alert":"hi"}}"#)
    let routed = try #require(
      try BrokerRouting.push(push, to: pair.watch, through: broker.address, timeout: 10))
    #expect(routed.description.hasPrefix("catcher"), "\(routed.description)")
    #expect(routed.description.contains("app.routes:1"), "\(routed.description)")
    #expect(routed.failure == nil)
    let link = try BrokerRouting.open(
      try DeepLink("demo://open/item"), on: pair.watch, through: broker.address, timeout: 10)
    #expect(link?.description.contains("app.routes:2") == true, "\(String(describing: link))")
    #expect(printed.wait(for: 2).count == 2)
    // Unhandled is an answer too.
    let other = try BrokerRouting.push(
      try PushNotification(json: #"{"aps":{"notification_id":"other"}}"#), to: pair.watch,
      through: broker.address, timeout: 10)
    #expect(other?.description == "unhandled")
  }

  @Test func aDeviceWithoutRoutesRefusesAndOneNotRunningDoesNotAnswer() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let (broker, pair) = (fixture.broker, fixture.pair)
    let push = try PushNotification(json: #"{"aps":{"notification_id":"x"}}"#)
    #expect(try BrokerRouting.push(push, to: pair.watch, through: broker.address, timeout: 1) == nil)
    _ = try fixture.device(pair.watch)
    let online = try fixture.subscriber("wormhole/v1/pairs/pair/watch/presence", extra: ["-F", "%p"])
    online.lines.wait { $0.contains("online") }
    #expect(throws: PairedDeviceError.self) {
      try BrokerRouting.push(push, to: pair.watch, through: broker.address, timeout: 10)
    }
  }

  /// Anyone can publish on a device's `push` topic: what is not a push or a deep link addressed
  /// to the device, with a request identifier, is refused (a session failure) and not answered.
  @Test func whatArrivesOnThePushTopicIsCheckedBeforeItIsRouted() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let (broker, pair) = (fixture.broker, fixture.pair)
    let watch = try fixture.device(pair.watch)
    let printed = Collector<DeviceRoutes.Printed>()
    let file = try RoutesFile.parse("push .* print\n", file: "app.routes")
    watch.link.route(with: DeviceRoutes(routes: file, device: watch.device) { printed.append($0) })
    let answers = try fixture.subscriber("wormhole/v1/pairs/pair/watch/routed", extra: ["-F", "%l"])
    let intruder = try MQTTClient(clientIdentifier: "intruder", cleanSession: true) { _ in }
    try intruder.connect(to: broker.address)
    defer { intruder.disconnect() }
    // Subscribed once the watch is online (the retained presence has been handed out to a
    // subscriber made after it).
    let online = try fixture.subscriber("wormhole/v1/pairs/pair/watch/presence", extra: ["-F", "%p"])
    online.lines.wait { $0.contains("online") }
    let topic = try DeviceTopics(address: pair.watch).topic(.push)
    let codec = FrameCodec()
    let payload = bytes(#"{"aps":{"notification_id":"x"}}"#)
    let hostile: [[UInt8]] = [
      bytes("garbage"),
      try codec.encode(DeviceFrame(kind: .push, identifier: "r1", sender: .phone, time: 0, payload: payload)),
      try codec.encode(
        DeviceFrame(kind: .message, identifier: "r2", sender: .watch, time: 0, payload: payload)),
      try codec.encode(DeviceFrame(kind: .push, identifier: "", sender: .watch, time: 0, payload: payload)),
      try codec.encode(
        DeviceFrame(kind: .push, identifier: "a b", sender: .watch, time: 0, payload: payload)),
    ]
    for bytes in hostile {
      #expect(try intruder.publish(bytes, to: topic, quality: .atLeastOnce, retained: false, timeout: 5))
    }
    let failures = { (values: [SessionDelivery]) in
      values.filter { if case .failure = $0 { true } else { false } }
    }
    #expect(failures(watch.deliveries.wait { failures($0).count >= hostile.count }).count == hostile.count)
    // A well-formed one after them is routed and answered: the only answer, the only print.
    let routed = try BrokerRouting.push(
      try PushNotification(json: payload), to: pair.watch, through: broker.address, timeout: 10)
    #expect(routed?.description.hasPrefix("catcher") == true)
    #expect(answers.lines.wait(for: 1).count == 1)
    #expect(printed.values.count == 1)
  }

  /// `push --broker` and `open-url --broker` from a home where the device does not run (another
  /// machine's), to a `device run --broker --routes` in its own process.
  @Test func pushAndOpenURLWithBrokerReachADeviceRunElsewhere() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let (broker, home) = (fixture.broker, fixture.home)
    let elsewhere = BrokerHome()
    defer { elsewhere.remove() }
    home.directory.write("app.routes", "push greeting print\ndeep-link demo://.* print\n")
    home.directory.write("push.json", #"{"aps":{"notification_id":"greeting"}}"#)
    let online = try fixture.subscriber("wormhole/v1/pairs/pair/watch/presence", extra: ["-F", "%p"])
    let watch = try ChildProcess(
      wormholePath,
      arguments: [
        "device", "run", "--pair", "pair", "--role", "watch", "--broker", broker.url, "--home", home.path,
        "--routes", home.directory.path("app.routes"),
      ],
      standardOutput: .file(elsewhere.path + "/watch.output"))
    defer {
      if watch.isRunning { watch.signal(SIGKILL) }
      watch.waitUntilExit()
    }
    try #require(online.lines.wait(seconds: 20) { $0.contains("online") }.contains("online"))
    let pushed = try runWormhole([
      "push", "--device", "pair:watch", "--broker", broker.url, "--home", elsewhere.path,
      home.directory.path("push.json"),
    ])
    #expect(pushed.status == 0)
    #expect(pushed.output.hasPrefix("catcher 0 "), "\(pushed.output)")
    let opened = try runWormhole([
      "open-url", "--device", "pair:watch", "--broker", broker.url, "--home", elsewhere.path, "demo://x",
    ])
    #expect(opened.status == 0)
    #expect(opened.output.hasPrefix("catcher 0 "), "\(opened.output)")
    #expect(opened.output.contains("app.routes:2)"), "\(opened.output)")
    watch.signal(SIGKILL)
    watch.waitUntilExit()
    let printed = elsewhere.directory.contents("watch.output") ?? ""
    #expect(printed.contains("push catcher 0"), "\(printed)")
    #expect(printed.contains("deep-link catcher 0"), "\(printed)")
  }
}
