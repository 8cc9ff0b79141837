import MQTTClient
import TestSupport
import Testing

/// The client's own network loop (`MQTTClient(coalescesWrites: true)`): what libmosquitto's
/// loop does for a client besides writing (reconnecting, keeping the connection alive,
/// acknowledging what arrives) it does too. Its batches are in ``MQTTClientBatchTests``, its
/// acknowledgements at disconnection in ``MQTTClientTests``.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct MQTTClientOwnLoopTests {
  @Test func itReconnectsAfterTheBrokerRestartsAndPublishesAgain() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let writer = try MQTTClientTests.Recorder(broker, identifier: "own-writer", coalescesWrites: true)
    try broker.restart()
    let reconnected = writer.events.wait(seconds: 20) { $0.filter { $0 == .connected }.count >= 2 }
    try #require(reconnected.filter { $0 == .connected }.count >= 2, "\(reconnected)")
    #expect(reconnected.contains { if case .disconnected = $0 { true } else { false } })
    let reader = try MQTTClientTests.Recorder(broker, identifier: "own-reader")
    try reader.subscribe("again/#", probe: "again/probe")
    let batch = (0..<30).map { MQTTMessage(topic: "again/m", payload: bytes("\($0)"), quality: .atLeastOnce) }
    try writer.client.publish(batch)
    reader.events.wait { _ in reader.messages.filter { $0.topic == "again/m" }.count >= 30 }
    #expect(reader.messages.filter { $0.topic == "again/m" } == batch)
    writer.client.disconnect()
    reader.client.disconnect()
  }

  /// An idle client pings within its keep-alive (5 s): the broker, which drops a client silent
  /// for one and a half times that (mosquitto 2.0.11 did so after about 12 s when the own loop
  /// did not call `mosquitto_loop_misc`: checked), keeps it, and publishes no Last Will.
  @Test func anIdleClientStaysConnectedPastItsKeepAlive() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let watcher = try MQTTClientTests.Recorder(broker, identifier: "own-watcher")
    try watcher.subscribe("idle/#", probe: "idle/probe")
    let will = MQTTMessage(topic: "idle/will", payload: bytes("gone"), quality: .atLeastOnce)
    let idle = try MQTTClientTests.Recorder(
      broker, identifier: "own-idle", will: will, coalescesWrites: true, keepAlive: 5)
    // Waiting for a disconnection that must not come: 16 s, well past the broker's 7.5 s.
    let events = idle.events.wait(seconds: 16) {
      $0.contains { if case .disconnected = $0 { true } else { false } }
    }
    #expect(!events.contains { if case .disconnected = $0 { true } else { false } }, "\(events)")
    #expect(!watcher.messages.contains { $0.topic == "idle/will" })
    #expect(
      try idle.client.publish(
        bytes("still"), to: "idle/still", quality: .atLeastOnce, retained: false, timeout: 5))
    idle.client.disconnect()
    watcher.client.disconnect()
  }

  /// QoS 1 messages received are acknowledged: a persistent session that comes back at once is
  /// not handed them again. Issue 15: under load a session that disconnected right after its
  /// 40th message was handed the last 2 to 18 again. `disconnect()` returned once libmosquitto
  /// had written the acknowledgements and the DISCONNECT and closed its socket, before the
  /// broker had read them: mosquitto reads one packet of a connection per pass, so the new
  /// connection's CONNECT came first, the broker took the session over ("already connected,
  /// closing old connection") and closed the old connection with the acknowledgements unread.
  /// Now `disconnect()` returns once the broker closed the connection, after the DISCONNECT.
  @Test(arguments: [false, true])
  func messagesReceivedAreAcknowledged(coalescesWrites: Bool) throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let first = try MQTTClientTests.Recorder(
      broker, identifier: "own-acks", cleanSession: false, coalescesWrites: coalescesWrites)
    try first.subscribe("acked/#", probe: "acked/probe")
    let writer = try MQTTClientTests.Recorder(broker, identifier: "own-acks-writer")
    try writer.client.publish(
      (0..<40).map { MQTTMessage(topic: "acked/m", payload: bytes("\($0)"), quality: .atLeastOnce) })
    first.events.wait { _ in first.messages.filter { $0.topic == "acked/m" }.count >= 40 }
    #expect(first.messages.filter { $0.topic == "acked/m" }.count == 40)
    first.client.disconnect()
    let again = try MQTTClientTests.Recorder(
      broker, identifier: "own-acks", cleanSession: false, coalescesWrites: coalescesWrites)
    try again.client.publish(bytes("next"), to: "acked/m", quality: .atLeastOnce)
    again.events.wait { _ in !again.messages.isEmpty }
    #expect(again.messages.map { String(decoding: $0.payload, as: UTF8.self) } == ["next"])
    // The broker had ended the first connection: the second did not take the session over
    // (mosquitto logs that before the second connection's line).
    let log = broker.waitForLog(seconds: 5) { $0.filter { $0.contains(" as own-acks ") }.count >= 2 }
    #expect(log.filter { $0.contains(" as own-acks ") }.count == 2)
    #expect(!log.contains { $0.contains("own-acks already connected") }, "\(log)")
    again.client.disconnect()
    writer.client.disconnect()
  }
}
