import DevicePairing
import DeviceSession
import Glibc
import MQTTClient
import TestSupport
import Testing

/// A device link's own failures over the broker (taken over by a newer run of its role, a
/// publication the ACL refuses) are said as such by `device run`, `pair list` and the control
/// socket, not as "a frame from the counterpart was refused"; and a clean stop takes its run's
/// retained claim with it.
@Suite(
  .enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"), .serialized)
struct LinkDenialBrokerTests {
  static let frameRefusal = "a frame from the counterpart was refused"

  /// `device run` of `role` of `pair` in `home` through `broker`, once it says it runs.
  static func device(
    _ pair: String, _ role: String, _ home: BrokerHome, broker: TestBroker,
    environment: [String: String] = [:]
  ) throws -> WormholeChild {
    let child = try WormholeChild(
      ["device", "run", "--pair", pair, "--role", role, "--broker", broker.url, "--home", home.path],
      environment: environment)
    guard child.waitForError(containing: "is running", seconds: 20) else {
      child.stop()
      throw BrokerTestError("device run \(role) did not start: \(child.errorText)")
    }
    return child
  }

  /// The retained message on `topic` now, `nil` when there is none: read with `mosquitto_sub
  /// --retained-only` together with a retained sentinel subscribed after it, which the broker
  /// hands over after `topic`'s (one SUBSCRIBE, its filters in order), so that "none" is
  /// known when the sentinel comes, not after a wait.
  static func retained(_ topic: String, on broker: TestBroker) throws -> String? {
    let sentinel = "test/sentinel/\(UInt64.random(in: 1 ... .max))"
    let publish = try ChildProcess(
      "/usr/bin/mosquitto_pub",
      arguments: [
        "-h", "127.0.0.1", "-p", "\(broker.address.port)", "-r", "-q", "1", "-t", sentinel, "-m", "end",
      ])
    publish.waitUntilExit()
    guard publish.terminationStatus == 0 else { throw BrokerTestError("mosquitto_pub failed") }
    let reader = try Subscriber(broker, filter: topic, extra: ["-t", sentinel, "--retained-only"])
    defer { reader.stop() }
    let lines = reader.lines.wait(seconds: 10) { $0.contains { $0.hasPrefix(sentinel + " ") } }
    guard lines.contains(where: { $0.hasPrefix(sentinel + " ") }) else {
      throw BrokerTestError("the sentinel did not come: \(lines)")
    }
    return lines.first { $0.hasPrefix(topic + " ") }.map { String($0.dropFirst(topic.count + 1)) }
  }

  /// How many claims (`TIME TOKEN`, not a clearing) on `topic` are among a watcher's `lines`.
  static func claims(on topic: String, _ lines: [String]) -> Int {
    lines.filter { line in
      guard line.hasPrefix(topic + " ") else { return false }
      let payload = line.dropFirst(topic.count + 1).split(separator: " ")
      return payload.count == 2 && payload[1].count == 16
    }.count
  }

  /// Waits until `watcher` has seen `count` claims on `topic`; whether it did.
  static func waitForClaims(_ count: Int, on topic: String, _ watcher: Subscriber) -> Bool {
    claims(on: topic, watcher.lines.wait(seconds: 10) { claims(on: topic, $0) >= count }) >= count
  }

  @Test func anEarlierWatchRunSaysItWasTakenOverNotThatAFrameWasRefused() throws {
    let fixture = try PairFixture(homes: 2)
    defer { fixture.remove() }
    let (broker, here, there) = (fixture.broker, fixture.homes[0], fixture.homes[1])
    let claim = "wormhole/v1/pairs/pair/watch/claim"
    let watcher = try fixture.subscriber(claim)
    let first = try Self.device("pair", "watch", here, broker: broker)
    defer { first.stop() }
    try #require(Self.waitForClaims(1, on: claim, watcher), "the first watch published no claim")
    let second = try Self.device("pair", "watch", there, broker: broker)
    defer { second.stop() }
    let said = "this device was taken over: another watch of pair took its place on the broker"
    #expect(first.waitForError(containing: said, seconds: 20), "\(first.errorText)")
    #expect(!first.errorText.contains(Self.frameRefusal), "\(first.errorText)")
    #expect(!second.errorText.contains("taken over"), "\(second.errorText)")

    // Its status says so, and a message sent through it fails with it, not with 7007.
    let listed = try WormholeChild.run(["pair", "list", "--home", here.path])
    #expect(listed.output.contains(", taken over: another watch of pair took its place"), "\(listed.output)")
    let json = try WormholeChild.run(["pair", "list", "--json", "--home", here.path])
    #expect(
      json.output.contains("\"denied\":{\"kind\":\"takenOver\",\"reason\":\"another watch"), "\(json.output)")
    let pass = try WormholeChild.run([
      "pass", "--transiting", "session-message", "--pair", "pair", "--role", "watch", "--home", here.path,
      "ping", "--string", "x",
    ])
    #expect(pass.status == 3, "\(pass.errors)")
    #expect(pass.errors.contains(said), "\(pass.errors)")
    #expect(!pass.errors.contains("7007"), "\(pass.errors)")
  }

  @Test func aDeviceTheACLRefusesSaysItsLinkWasRefusedNotThatAFrameWas() throws {
    let fixture = try ACLFixture(pairs: [["other"]])
    defer { fixture.remove() }
    let (broker, secrets, home) = (fixture.broker, fixture.secrets, fixture.homes[0])
    let outside = try Self.device(
      "other", "phone", home, broker: broker,
      environment: BrokerACLTests.credentials("demo-phone", in: secrets))
    defer { outside.stop() }
    let said =
      "this device's link was refused: the broker did not accept the publication on wormhole/v1/pairs/other/phone/"
    #expect(outside.waitForError(containing: said, seconds: 20), "\(outside.errorText)")
    // The rest of the line may come in a later read of the pipe.
    #expect(outside.waitForError(containing: BrokerACLTests.refusal), "\(outside.errorText)")
    #expect(!outside.errorText.contains(Self.frameRefusal), "\(outside.errorText)")
    let listed = try WormholeChild.run(["pair", "list", "--home", home.path])
    #expect(
      listed.output.contains(", refused: the broker did not accept the publication"), "\(listed.output)")
  }

  /// A connection the broker refuses (a wrong password) is said once, with the broker's words,
  /// while libmosquitto tries again; before, the device waited in silence, unreachable.
  @Test func aDeviceWhoseConnectionTheBrokerRefusesSaysWhyOnce() throws {
    let fixture = try ACLFixture(pairs: [["demo"]])
    defer { fixture.remove() }
    let (broker, secrets, home) = (fixture.broker, fixture.secrets, fixture.homes[0])
    var environment = BrokerACLTests.credentials("demo-phone", in: secrets)
    secrets.write("demo-phone.password", "wrong\n")
    chmod(secrets.path("demo-phone.password"), 0o600)
    environment[MQTTConnectionOptions.passwordFileVariable] = secrets.path("demo-phone.password")
    let phone = try Self.device("demo", "phone", home, broker: broker, environment: environment)
    defer { phone.stop() }
    let said = "this device's link was refused: the broker refused the connection: "
    #expect(phone.waitForError(containing: said, seconds: 20), "\(phone.errorText)")
    #expect(phone.waitForError(containing: "set WORMHOLE_MQTT_USERNAME"), "\(phone.errorText)")
    let listed = try WormholeChild.run(["pair", "list", "--home", home.path])
    #expect(listed.output.contains(", refused: the broker refused the connection: "), "\(listed.output)")
    // Three attempts, one line.
    let attempts = { (lines: [String]) in lines.filter { $0.contains("New connection from") }.count }
    #expect(attempts(broker.waitForLog(seconds: 20) { attempts($0) >= 3 }) >= 3)
    #expect(phone.errorText.components(separatedBy: said).count == 2, "\(phone.errorText)")
  }

  /// `mqtts://` with another CA: the TLS handshake fails at the start, so `device run` ends
  /// at once with OpenSSL's words and the advice (exit 3), not a device left waiting.
  @Test func aDeviceWhoseBrokerCertificateFailsEndsAtOnceSayingWhy() throws {
    let certificates = TemporaryDirectory(prefix: "certificates")
    defer { certificates.remove() }
    let made = try TestCertificates(in: certificates)
    let broker = try TestBroker(usesTLS: true) { _ in made.listenerSettings() }
    defer { broker.stop() }
    let home = BrokerHome()
    defer { home.remove() }
    _ = try home.makePair()
    let started = ContinuousClock.now
    let refused = try WormholeChild.run(
      ["device", "run", "--pair", "pair", "--role", "watch", "--broker", broker.url, "--home", home.path],
      environment: [MQTTConnectionOptions.certificateAuthorityFileVariable: made.otherAuthority])
    #expect(ContinuousClock.now - started < .seconds(15))
    #expect(refused.status == 3, "\(refused.errors)")
    #expect(refused.errors.contains("certificate verify failed"), "\(refused.errors)")
    #expect(refused.errors.contains("set WORMHOLE_MQTT_CAFILE to the broker's CA file"), "\(refused.errors)")
  }

  /// Under the README's ACL for pairs (the claim topic is the device's own), a newer run of the
  /// watch takes over: the claim goes through, the earlier one says it was taken over, and the
  /// pair works with the newer one.
  @Test func aTakeoverUnderThePairsACLIsSaidAndThePairGoesOnWithTheNewerRun() throws {
    let fixture = try ACLFixture(pairs: [["demo"], ["demo"]])
    defer { fixture.remove() }
    let (broker, secrets, here, there) = (fixture.broker, fixture.secrets, fixture.homes[0], fixture.homes[1])
    let watchUser = BrokerACLTests.credentials("demo-watch", in: secrets)
    let phone = try Self.device(
      "demo", "phone", here, broker: broker,
      environment: BrokerACLTests.credentials("demo-phone", in: secrets))
    defer { phone.stop() }
    let first = try Self.device("demo", "watch", here, broker: broker, environment: watchUser)
    defer { first.stop() }
    try #require(first.waitForError(containing: "the phone is reachable", seconds: 20), "\(first.errorText)")
    let second = try Self.device("demo", "watch", there, broker: broker, environment: watchUser)
    defer { second.stop() }
    let said = "this device was taken over: another watch of demo took its place on the broker"
    #expect(first.waitForError(containing: said, seconds: 20), "\(first.errorText)")
    #expect(second.waitForError(containing: "the phone is reachable", seconds: 20), "\(second.errorText)")
    for child in [phone, first, second] {
      #expect(!child.errorText.contains("Not authorized"), "\(child.errorText)")
      #expect(!child.errorText.contains(Self.frameRefusal), "\(child.errorText)")
    }
    #expect(!second.errorText.contains("taken over"), "\(second.errorText)")
  }

  @Test func aCleanStopOfDeviceRunClearsItsClaimAndSIGKILLLeavesIt() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let (broker, home) = (fixture.broker, fixture.home)
    let claim = "wormhole/v1/pairs/pair/watch/claim"
    let watcher = try fixture.subscriber(claim)
    let stopped = try Self.device("pair", "watch", home, broker: broker)
    defer { stopped.stop() }
    try #require(Self.waitForClaims(1, on: claim, watcher), "the watch published no claim")
    let made = try #require(try Self.retained(claim, on: broker))
    stopped.stop(SIGTERM)
    #expect(stopped.process.terminationStatus == 0, "\(stopped.errorText)")
    #expect(try Self.retained(claim, on: broker) == nil, "\(made) stayed after a clean stop")

    let killed = try Self.device("pair", "watch", home, broker: broker)
    defer { killed.stop() }
    try #require(Self.waitForClaims(2, on: claim, watcher), "the second watch published no claim")
    let second = try #require(try Self.retained(claim, on: broker))
    killed.stop(SIGKILL)
    #expect(try Self.retained(claim, on: broker) == second)
  }

  /// The library's stop (`SimulatedDevice.stop()`) clears the run's claim too, but not a claim
  /// that replaced it (another run's).
  @Test func theLibrarysStopClearsItsOwnClaimButNotANewerOne() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    let (broker, pair) = (fixture.broker, fixture.pair)
    let claim = "wormhole/v1/pairs/pair/phone/claim"
    let watcher = try fixture.subscriber(claim)
    let own = try fixture.device(pair.phone)
    try #require(Self.waitForClaims(1, on: claim, watcher))
    #expect(try Self.retained(claim, on: broker) != nil)
    own.stop()
    #expect(try Self.retained(claim, on: broker) == nil)

    let other = try fixture.device(pair.phone)
    try #require(Self.waitForClaims(2, on: claim, watcher))
    // Another run's claim, as a device on another machine would publish it, then a push that is
    // none: the device reports the push, so it has heard the claim before it (one connection,
    // in order).
    let newer = "99999999999999 ffffffffffffffff"
    for (topic, payload, retained) in [
      (claim, newer, true), ("wormhole/v1/pairs/pair/phone/push", "x", false),
    ] {
      let publish = try ChildProcess(
        "/usr/bin/mosquitto_pub",
        arguments: ["-h", "127.0.0.1", "-p", "\(broker.address.port)", "-q", "1", "-t", topic, "-m", payload]
          + (retained ? ["-r"] : []))
      publish.waitUntilExit()
      try #require(publish.terminationStatus == 0)
    }
    other.deliveries.wait(seconds: 10) { $0.contains { if case .failure = $0 { true } else { false } } }
    try #require(other.deliveries.values.contains { if case .failure = $0 { true } else { false } })
    other.stop()
    #expect(try Self.retained(claim, on: broker) == newer)
  }
}
