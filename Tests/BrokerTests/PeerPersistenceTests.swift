import DevicePairing
import Foundation
import Glibc
import MQTTClient
import PeerSession
import TestSupport
import Testing

/// A peer's inbox is a persistent session (MQTT 5, expiring after the outage limit): reliable
/// frames the broker holds for a peer that is not reading survive a restart of a persistent
/// broker and arrive once each, in order, and the session goes on.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct PeerPersistenceTests {
  /// The data texts a `peer run` child printed, in order (`data from NAME#xxxx reliable N bytes: TEXT`).
  static func received(_ child: WormholeChild) -> [String] {
    child.outputText.split(separator: "\n").compactMap { line in
      guard line.hasPrefix("data from "), line.contains(" reliable "), let range = line.range(of: " bytes: ")
      else { return nil }
      return String(line[range.upperBound...])
    }
  }

  /// The watch (a `peer run --broker` child) is stopped with SIGSTOP while the phone sends it 60
  /// reliable frames: the broker writes a window of them to the watch's socket and holds the rest
  /// in its session. The broker is killed and started again (persistent), the watch continued:
  /// all 60 arrive, once each and in order, and the data sent afterwards too, with no gap reported.
  @Test func reliableFramesTheBrokerHeldForAStoppedPeerSurviveARestartOfAPersistentBroker() throws {
    let broker = try TestBroker(persistent: true)
    defer { broker.stop() }
    let (first, second) = (BrokerHome(), BrokerHome())
    defer { [first, second].forEach { $0.remove() } }
    // A keep-alive of 40 s (heartbeats every 10 s): the watch stopped for a few seconds is not
    // taken for gone, and the broker does not close its connection meanwhile.
    let watch = try PeerBrokerProcessTests.run(
      "watch", home: first, broker: broker, ["--advertise", "--accept", "always"],
      environment: ["WORMHOLE_MQTT_KEEPALIVE": "40"])
    defer { watch.stop() }
    let phone = try BrokerPeer("phone", home: second.path, broker: broker, browse: true, keepAlive: 40)
    defer { phone.stop() }
    let found = try #require(phone.find(named: "watch", seconds: 20))
    #expect(phone.request(["invite", "watch", "", "10"]).text(0) == "ok")
    // A copy of everything the broker takes for the watch's inbox: once it has all 60, the
    // broker holds them (delivered to the stopped watch's socket, or queued for it). Each copy
    // is a frame, which ends with its data.
    let copies = Collector<[UInt8]>()
    let observer = try MQTTClient(clientIdentifier: "observer", cleanSession: true) { event in
      if case .received(let message) = event { copies.append(message.payload) }
    }
    try observer.connect(to: broker.address)
    defer { observer.disconnect() }
    try observer.subscribe(
      "wormhole/v1/peers/chat/\(PeerDirectory.hex(found.id))/inbox/+", quality: .atLeastOnce)
    #expect(phone.request(["send", "watch", "reliable", "m0"]).text(0) == "ok")
    #expect(watch.output.wait(seconds: 10) { String(decoding: $0, as: UTF8.self).contains(": m0") }.count > 0)
    _ = kill(watch.process.processIdentifier, SIGSTOP)
    let texts = (1...60).map { "m\($0)" }
    for text in texts {
      let sent = phone.request(["send", "watch", "reliable", text])
      #expect(sent.text(0) == "ok", "\(text): \(sent.text(2))")
    }
    // Each text's own copy (none ends with another's: "m1" is no suffix of "m21"), not a count
    // from a moment: the observer's thread may not have taken every copy of what came before.
    let holdsAll = { (copies: [[UInt8]]) in
      texts.allSatisfy { text in copies.contains { $0.suffix(text.utf8.count).elementsEqual(text.utf8) } }
    }
    #expect(
      holdsAll(copies.wait(seconds: 10, until: holdsAll)), "the broker did not take all 60 for the watch")
    // The broker is killed: what it had not saved yet is lost with it (it saves after each
    // change, once its loop comes round). Any save it logs after a line it wrote once it held
    // the 60 holds them: the saves are counted to that line (the log read to it, not as far as
    // the test's thread had read it), and one change more is made, saved after it.
    let saves = { (lines: [String]) in lines.filter { $0.contains("Saving in-memory database") }.count }
    let before = saves(try broker.logCaughtUp())
    #expect(
      try observer.publish(
        Array("1".utf8), to: "test/sentinel", quality: .atLeastOnce, retained: true, timeout: 5))
    #expect(saves(broker.waitForLog(seconds: 5) { saves($0) > before }) > before)
    try broker.restart()
    _ = kill(watch.process.processIdentifier, SIGCONT)
    // Taken again once the phone has heard the watch since reconnecting.
    let deadline = Date() + 20
    var after = phone.request(["send", "watch", "reliable", "m61"])
    while after.text(0) != "ok" && Date() < deadline {
      usleep(50_000)
      after = phone.request(["send", "watch", "reliable", "m61"])
    }
    #expect(after.text(0) == "ok", "\(after.text(2))")
    _ = watch.output.wait(seconds: 20) { String(decoding: $0, as: UTF8.self).contains(": m61\n") }
    #expect(Self.received(watch) == ["m0"] + texts + ["m61"], "\(watch.outputText)")
    #expect(!watch.outputText.contains("refused"), "\(watch.outputText)")
    #expect(!watch.outputText.contains("notConnected"), "\(watch.outputText)")
    #expect(phone.peer.engine.connectedPeers == [found])
  }

  /// The broker's log names each connection's protocol and whether its session is clean
  /// (`p5, c0`: MQTT 5, persistent; `p2, c1`: 3.1.1, clean): a broker peer keeps a persistent session under MQTT 5 and a
  /// clean one under MQTT 3.1.1, which cannot bound its life. A `peer run` given an outage limit
  /// it cannot use refuses to start, naming the variable.
  @Test func aBrokerPeerKeepsAPersistentSessionUnderMQTT5AndACleanOneUnder311() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let home = BrokerHome()
    defer { home.remove() }
    let modern = try PeerBrokerProcessTests.run("modern", home: home, broker: broker, [])
    defer { modern.stop() }
    let old = try PeerBrokerProcessTests.run(
      "old", home: home, broker: broker, [], environment: ["WORMHOLE_MQTT_PROTOCOL": "3.1.1"])
    defer { old.stop() }
    let peers = { (lines: [String]) in lines.filter { $0.contains(" as wormhole/v1/peers/chat/") } }
    let lines = peers(broker.waitForLog(seconds: 10) { peers($0).count >= 2 })
    #expect(lines.count == 2, "\(lines)")
    #expect(lines.contains { $0.contains("(p5, c0,") }, "\(lines)")
    #expect(lines.contains { $0.contains("(p2, c1,") }, "\(lines)")
    let refused = try WormholeChild.run(
      ["peer", "run", "--service", "chat", "--name", "bad", "--broker", broker.url, "--home", home.path],
      environment: [MQTTPeerLink.outageVariable: "soon"])
    #expect(refused.status == 2 && refused.errors.contains(MQTTPeerLink.outageVariable), "\(refused.errors)")
    #expect(throws: (any Error).self) {
      try MQTTPeerLink.defaultOutageLimit { $0 == MQTTPeerLink.outageVariable ? "86401" : nil }
    }
    #expect(
      try MQTTPeerLink.defaultOutageLimit { $0 == MQTTPeerLink.outageVariable ? "5" : nil } == .seconds(5))
    #expect(try MQTTPeerLink.defaultOutageLimit { _ in nil } == MQTTPeerLink.standardOutageLimit)
  }
}
