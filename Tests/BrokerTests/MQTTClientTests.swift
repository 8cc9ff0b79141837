import Foundation
import MQTTClient
import Synchronization
import TestSupport
import Testing

/// The MQTT client against a mosquitto of the test's own.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct MQTTClientTests {
  /// A connected client whose events are collected.
  final class Recorder: Sendable {
    let events = Collector<MQTTEvent>()
    let client: MQTTClient

    init(
      _ broker: TestBroker, identifier: String, cleanSession: Bool = true, will: MQTTMessage? = nil,
      maximumPayloadBytes: Int = MQTTClient.defaultMaximumPayloadBytes, disablesNagle: Bool = false,
      coalescesWrites: Bool = false, keepAlive: Int = 10
    ) throws {
      let events = events
      client = try MQTTClient(
        clientIdentifier: identifier, cleanSession: cleanSession, will: will,
        maximumPayloadBytes: maximumPayloadBytes, disablesNagle: disablesNagle,
        coalescesWrites: coalescesWrites
      ) { events.append($0) }
      try client.connect(to: broker.address, keepAlive: keepAlive)
      try #require(events.wait(seconds: 10) { $0.contains(.connected) }.contains(.connected))
    }

    var messages: [MQTTMessage] {
      events.values.compactMap { if case .received(let message) = $0 { return message } else { return nil } }
    }

    /// Subscribes and waits until the subscription is in force: a probe this client publishes
    /// after subscribing comes back (the broker takes one connection's packets in order).
    func subscribe(_ filter: String, probe: String, quality: MQTTQuality = .atLeastOnce) throws {
      try client.subscribe(filter, quality: quality)
      try client.publish(bytes("probe"), to: probe, quality: .atLeastOnce)
      let seen = events.wait(seconds: 10) {
        $0.contains(.received(MQTTMessage(topic: probe, payload: bytes("probe"), quality: quality)))
      }
      try #require(
        seen.contains {
          if case .received(let message) = $0 { return message.topic == probe } else { return false }
        })
    }
  }

  @Test func messagesArriveInOrderWithTheirQualityAndRetainedOnesReachLateSubscribers() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let reader = try Recorder(broker, identifier: "reader")
    try reader.subscribe("test/#", probe: "test/probe")
    let writer = try Recorder(broker, identifier: "writer")
    try writer.client.publish(bytes("zero"), to: "test/a", quality: .atMostOnce)
    try writer.client.publish(bytes("one"), to: "test/a", quality: .atLeastOnce)
    #expect(
      try writer.client.publish(
        bytes("kept"), to: "test/kept", quality: .atLeastOnce, retained: true, timeout: 5))
    let got = reader.events.wait { $0.filter { if case .received = $0 { true } else { false } }.count >= 4 }
    #expect(got.count > 0)
    #expect(
      reader.messages.dropFirst() == [
        MQTTMessage(topic: "test/a", payload: bytes("zero"), quality: .atMostOnce),
        MQTTMessage(topic: "test/a", payload: bytes("one"), quality: .atLeastOnce),
        MQTTMessage(topic: "test/kept", payload: bytes("kept"), quality: .atLeastOnce),
      ])
    // A client that subscribes later is handed the retained message, marked as such.
    let late = try Recorder(broker, identifier: "late")
    try late.client.subscribe("test/kept", quality: .atLeastOnce)
    late.events.wait { _ in !late.messages.isEmpty }
    #expect(
      late.messages == [
        MQTTMessage(topic: "test/kept", payload: bytes("kept"), quality: .atLeastOnce, isRetained: true)
      ])
    for client in [reader, writer, late] { client.client.disconnect() }
  }

  @Test func aPersistentSessionReceivesInOrderWhatWasPublishedWhileItWasAway() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let first = try Recorder(broker, identifier: "queued", cleanSession: false)
    try first.subscribe("queue/#", probe: "queue/probe")
    first.client.disconnect()
    let writer = try Recorder(broker, identifier: "writer")
    for index in 0..<20 {
      #expect(
        try writer.client.publish(
          bytes("\(index)"), to: "queue/item", quality: .atLeastOnce, retained: false, timeout: 5))
    }
    // The same identifier, no new subscription: the broker kept it and the twenty messages.
    let again = try Recorder(broker, identifier: "queued", cleanSession: false)
    again.events.wait { _ in again.messages.count >= 20 }
    #expect(again.messages.map { String(decoding: $0.payload, as: UTF8.self) } == (0..<20).map { "\($0)" })
    again.client.disconnect()
    writer.client.disconnect()
  }

  /// Issue 15: `disconnect()` right after a QoS 1 message arrived left its acknowledgement
  /// unsent (with TCP_NODELAY, most runs): libmosquitto 2.0 takes any packet that arrives after
  /// `mosquitto_disconnect` (here the broker's acknowledgement of the client's own publication,
  /// which follows the message) as a protocol error and closes the socket with the queue
  /// unsent, so the broker delivered the message again to the persistent session. 30 rounds of
  /// subscribe, publish, receive, disconnect; reconnected under the same identifier, the first
  /// message must be the next one, not the first delivered again (a redelivery comes first,
  /// right after the broker accepts the connection).
  @Test(arguments: [(true, false), (false, false), (true, true)])
  func disconnectRightAfterAMessageArrivedAcknowledgesIt(disablesNagle: Bool, coalescesWrites: Bool) throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    for round in 0..<30 {
      let identifier = "acks-\(round)"
      let first = try Recorder(
        broker, identifier: identifier, cleanSession: false, disablesNagle: disablesNagle,
        coalescesWrites: coalescesWrites)
      try first.client.subscribe("acks/\(round)", quality: .atLeastOnce)
      try first.client.publish(bytes("probe"), to: "acks/\(round)", quality: .atLeastOnce)
      // More of the broker's acknowledgements trail the message: more chances one arrives
      // between the message and the end of disconnect().
      for index in 0..<5 {
        try first.client.publish(bytes("\(index)"), to: "elsewhere/\(index)", quality: .atLeastOnce)
      }
      try #require(first.events.wait { _ in !first.messages.isEmpty }.contains { $0 != .connected })
      first.client.disconnect()
      let again = try Recorder(
        broker, identifier: identifier, cleanSession: false, disablesNagle: disablesNagle,
        coalescesWrites: coalescesWrites)
      try again.client.publish(bytes("next"), to: "acks/\(round)", quality: .atLeastOnce)
      again.events.wait { _ in !again.messages.isEmpty }
      again.client.disconnect()
      let received = again.messages.map { String(decoding: $0.payload, as: UTF8.self) }
      #expect(
        received.first == "next", "round \(round): the reconnected session first received \(received)")
    }
  }

  @Test func aPayloadAboveTheLimitIsDroppedBeforeItIsRead() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let reader = try Recorder(broker, identifier: "small", maximumPayloadBytes: 100)
    try reader.subscribe("big/#", probe: "big/probe")
    let writer = try Recorder(broker, identifier: "writer")
    try writer.client.publish([UInt8](repeating: 1, count: 200), to: "big/one", quality: .atLeastOnce)
    try writer.client.publish(bytes("after"), to: "big/two", quality: .atLeastOnce)
    reader.events.wait { _ in reader.messages.contains { $0.topic == "big/two" } }
    #expect(
      reader.events.values.contains(
        .dropped(reason: "a message of 200 bytes on big/one, above the limit of 100")))
    #expect(!reader.messages.contains { $0.topic == "big/one" })
    #expect(throws: MQTTError.payloadTooLarge(bytes: 200, limit: 100)) {
      try reader.client.publish([UInt8](repeating: 1, count: 200), to: "big/out")
    }
    reader.client.disconnect()
    writer.client.disconnect()
  }

  @Test func aLastWillOnAWildcardTopicIsRefusedBeforeConnecting() throws {
    #expect(throws: MQTTError.invalidArgument("the Last Will on a/+: Invalid function arguments provided.")) {
      _ = try MQTTClient(
        clientIdentifier: "will", cleanSession: true, will: MQTTMessage(topic: "a/+", payload: bytes("x"))
      ) { _ in }
    }
  }

  @Test func connectingWhereNoBrokerListensFailsWithTheAddress() throws {
    let port = try TestBroker.freePort()
    let client = try MQTTClient(clientIdentifier: "nobody", cleanSession: true) { _ in }
    let address = BrokerAddress(host: "127.0.0.1", port: port)
    #expect(throws: MQTTError.connectionFailed(address, reason: "Connection refused")) {
      try client.connect(to: address)
    }
  }
}

@Suite struct BrokerAddressTests {
  @Test func addressesAreMqttHostAndPort() throws {
    #expect(
      try BrokerAddress(parsing: "mqtt://example.org") == BrokerAddress(host: "example.org", port: 1883))
    #expect(
      try BrokerAddress(parsing: "mqtt://127.0.0.1:1884/") == BrokerAddress(host: "127.0.0.1", port: 1884))
    #expect(try BrokerAddress(parsing: "mqtt://[::1]:9") == BrokerAddress(host: "::1", port: 9))
    #expect(BrokerAddress(host: "::1", port: 9).description == "mqtt://[::1]:9")
    #expect(
      try BrokerAddress(parsing: "mqtts://example.org")
        == BrokerAddress(host: "example.org", port: 8883, usesTLS: true))
    for bad in [
      "example.org", "http://x", "mqtts://", "mqtt://", "mqtt://x:0", "mqtt://x:65536", "mqtt://u@x",
      "mqtt://x/path", "mqtt://x:1a", "mqtt://a b",
    ] {
      #expect(throws: MQTTError.self, "\(bad)") { try BrokerAddress(parsing: bad) }
    }
  }
}
