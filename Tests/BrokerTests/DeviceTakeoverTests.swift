import DevicePairing
import DeviceSession
import MQTTClient
import TestSupport
import Testing

/// Two devices of one role on two machines: the broker gives the client identifier
/// (`wormhole/v1/pairs/PAIR/ROLE`) to the newer one and closes the other.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct DeviceTakeoverTests {
  @Test func aDeviceWhoseRoleAnotherTookOverSaysSoAndDoesNotTakeItBack() throws {
    let fixture = try PairFixture(homes: 2)
    defer { fixture.remove() }
    let (broker, pair) = (fixture.broker, fixture.pair)
    let (_, first) = try fixture.reachableDevices()
    let second = try fixture.device(pair.phone, in: fixture.homes[1])
    // The first phone is told why its connection ended: another device of its role took it.
    let failures = first.deliveries.wait(seconds: 10) { values in
      values.contains { if case .failure = $0 { return true } else { return false } }
    }
    let said = failures.compactMap { delivery -> String? in
      if case .failure(let error) = delivery { return "\(error)" } else { return nil }
    }
    #expect(said.contains { $0.contains("another phone of pair took its place on the broker") }, "\(said)")
    // And it does not take the role back: before, the two took the session from each other
    // once a second, the watch's reachability flapping and its transfers split between them.
    // The broker's log is read by a thread of this process, behind the events: rather than
    // count from a moment, the phones' connections must come to rest, three seconds without a
    // new one (the flapping never did), well within the time allowed.
    func connections(_ lines: [String]) -> Int {
      lines.filter { $0.contains("as wormhole/v1/pairs/pair/phone ") }.count
    }
    let deadline = ContinuousClock.now + .seconds(20)
    var isAtRest = false
    while !isAtRest && ContinuousClock.now < deadline {
      let seen = connections(broker.logLines)
      isAtRest = connections(broker.waitForLog(seconds: 3) { connections($0) > seen }) == seen
    }
    #expect(
      isAtRest,
      "the phones still take the identifier from each other: \(connections(broker.logLines)) connections")
    #expect(second.waitReachable())
    #expect(first.link.isTakenOver)
  }

  /// A claim left by a run long gone, dated later than this one (another machine's clock ahead,
  /// or this one's set back), does not stop a device: its first connection takes the identifier
  /// whatever claim it finds, and its reconnections after a broker restart find its own.
  @Test func aStaleLaterClaimDoesNotStopADeviceNorDoesItsOwnAfterABrokerRestart() throws {
    let fixture = try PairFixture(persistent: true)
    defer { fixture.remove() }
    let broker = fixture.broker
    let publish = try ChildProcess(
      "/usr/bin/mosquitto_pub",
      arguments: [
        "-h", "127.0.0.1", "-p", "\(broker.address.port)", "-r", "-q", "1",
        "-t", "wormhole/v1/pairs/pair/phone/claim", "-m", "99999999999999 ffffffffffffffff",
      ])
    publish.waitUntilExit()
    try #require(publish.terminationStatus == 0)
    let (watch, phone) = try fixture.reachableDevices()
    try broker.restart()
    // Reachable again after the reconnection (the deliveries' last reachability says so).
    let flips = phone.deliveries.wait(seconds: 20) { values in
      values.filter { $0 == .reachabilityChanged(true) }.count >= 2
    }
    #expect(flips.filter { $0 == .reachabilityChanged(true) }.count >= 2)
    #expect(!phone.link.isTakenOver && !watch.link.isTakenOver)
  }
}
