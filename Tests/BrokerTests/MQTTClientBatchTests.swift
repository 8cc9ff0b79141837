import MQTTClient
import TestSupport
import Testing

/// The client's batch publication and its subscription without its own publications, against
/// a mosquitto of the test's own.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct MQTTClientBatchTests {
  /// With libmosquitto's network loop and with the client's own (`coalescesWrites`).
  @Test(arguments: [false, true])
  func aBatchArrivesWholeInItsOrderAndIsCheckedBeforeAnyOfItIsQueued(coalescesWrites: Bool) throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let reader = try MQTTClientTests.Recorder(broker, identifier: "reader", coalescesWrites: coalescesWrites)
    try reader.subscribe("batch/#", probe: "batch/probe")
    let writer = try MQTTClientTests.Recorder(
      broker, identifier: "writer", maximumPayloadBytes: 16, coalescesWrites: coalescesWrites)
    let batch = (0..<50).map {
      MQTTMessage(topic: "batch/m\($0 % 3)", payload: bytes("\($0)"), quality: .atLeastOnce)
    }
    let identifiers = try writer.client.publish(batch)
    #expect(identifiers.count == batch.count && Set(identifiers).count == batch.count)
    let got = reader.events.wait { _ in reader.messages.filter { $0.topic != "batch/probe" }.count >= 50 }
    #expect(got.count > 0)
    #expect(reader.messages.filter { $0.topic != "batch/probe" } == batch)

    // One payload above the limit: nothing of the batch is queued.
    let refused = [
      MQTTMessage(topic: "batch/late", payload: bytes("a"), quality: .atLeastOnce),
      MQTTMessage(topic: "batch/late", payload: [UInt8](repeating: 1, count: 17), quality: .atLeastOnce),
    ]
    #expect(throws: MQTTError.payloadTooLarge(bytes: 17, limit: 16)) { try writer.client.publish(refused) }
    try writer.client.publish([MQTTMessage(topic: "batch/after", payload: bytes("z"), quality: .atLeastOnce)])
    _ = reader.events.wait { _ in reader.messages.contains { $0.topic == "batch/after" } }
    #expect(!reader.messages.contains { $0.topic == "batch/late" })
  }

  @Test func aSubscriptionExcludingItsOwnHearsOthersButNotItself() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let listener = try MQTTClientTests.Recorder(broker, identifier: "listener")
    try listener.client.subscribe("own/#", quality: .atLeastOnce, excludingOwn: true)
    let other = try MQTTClientTests.Recorder(broker, identifier: "other")
    // The subscription is in force once one of the other's probes arrives.
    var inForce = false
    for _ in 0..<50 where !inForce {
      try other.client.publish(bytes("probe"), to: "own/probe", quality: .atLeastOnce)
      inForce =
        !listener.events.wait(seconds: 0.2) { _ in !listener.messages.isEmpty }.isEmpty
        && !listener.messages.isEmpty
    }
    try #require(inForce)
    // Each publication waits for the broker, which routed it to subscribers first: once the
    // other's arrives, the listener's own would have arrived before it.
    #expect(
      try listener.client.publish(
        bytes("mine"), to: "own/a", quality: .atLeastOnce, retained: false, timeout: 5))
    #expect(
      try other.client.publish(
        bytes("theirs"), to: "own/a", quality: .atLeastOnce, retained: false, timeout: 5))
    _ = listener.events.wait { _ in listener.messages.contains { $0.payload == bytes("theirs") } }
    #expect(
      listener.messages.filter { $0.topic == "own/a" }.map(\.payload) == [bytes("theirs")],
      "\(listener.events.values)")
  }
}
