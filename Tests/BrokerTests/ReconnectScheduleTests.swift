import Glibc
import MQTTClient
import TestSupport
import Testing

/// One reconnection schedule for every loop (issue 15): libmosquitto's, the client's own
/// (`coalescesWrites`, the bridge's) and the restarts of a loop that returned (TLS) wait
/// `MQTTClient.reconnectDelay(failures:limit:)` before each attempt. The own loop and TLS
/// doubled from 1 s to 30 s before.
@Suite struct ReconnectScheduleTests {
  /// The pauses before each attempt in a row, and when each attempt comes after the loss.
  static func schedule(limit: UInt32, attempts: UInt32) -> (pauses: [UInt32], times: [UInt32]) {
    let pauses = (1...attempts).map { MQTTClient.reconnectDelay(failures: $0, limit: limit) }
    return (pauses, pauses.reduce(into: []) { times, pause in times.append((times.last ?? 0) + pause) })
  }

  @Test func attemptsCome1_3_6_10_15SecondsAfterALossThenEveryLimit() {
    let standard = Self.schedule(limit: MQTTClient.defaultReconnectDelayLimit, attempts: 8)
    #expect(standard.pauses == [1, 2, 3, 4, 5, 5, 5, 5])
    #expect(standard.times == [1, 3, 6, 10, 15, 20, 25, 30])
    #expect(Self.schedule(limit: 3, attempts: 5).times == [1, 3, 6, 9, 12])
    #expect(Self.schedule(limit: 10, attempts: 12).pauses == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10])
    // A limit of 0 is 1 s (as libmosquitto's is at least its first pause); no failure yet is one.
    #expect(Self.schedule(limit: 0, attempts: 3).pauses == [1, 1, 1])
    #expect(MQTTClient.reconnectDelay(failures: 0, limit: 5) == 1)
    #expect(MQTTClient.reconnectDelay(failures: .max, limit: 5) == 5)
    // At most an hour: a larger limit overflowed the own loop's pause in milliseconds (an int),
    // which then did not pause at all.
    #expect(MQTTClient.reconnectDelay(failures: .max, limit: .max) == 3600)
  }
}

/// A bridge (its client runs its own loop) back on the broker within the schedule.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct BridgeReconnectScheduleTests {
  /// The broker is down 8 s: the bridge's attempts come 1, 3, 6 and 10 s after the loss, so the
  /// fourth one connects, about 10 s after it (doubling from 1 s, the attempts came 1, 3, 7 and
  /// 15 s after it: 15 s).
  @Test func aBridgeReconnectsAfterABrokerRestartWithinTheSchedule() throws {
    let setup = try BridgeTests.Setup()
    defer { setup.stop() }
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { bridge.stop() }
    let connections = { (lines: [String]) in lines.filter { $0.contains(" as wormhole-bridge-m1-") }.count }
    let first = setup.broker.waitForLog(seconds: 10) { connections($0) >= 1 }
    try #require(connections(first) == 1, "\(bridge.diagnostics)")
    setup.broker.kill()
    let lost = ContinuousClock.now
    // The outage itself is what is tested: nothing to wait for but time.
    usleep(8_000_000)
    try setup.broker.restart()
    let again = setup.broker.waitForLog(seconds: 20) { connections($0) >= 2 }
    let elapsed = ContinuousClock.now - lost
    #expect(connections(again) == 2, "\(bridge.diagnostics)")
    // 10 s, and time for a loaded machine to run the attempt and log it.
    #expect(elapsed < .seconds(13), "reconnected \(elapsed) after the loss")
  }
}
