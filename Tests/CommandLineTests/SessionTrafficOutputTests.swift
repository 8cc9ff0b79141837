import Foundation
import Testing
import Wormhole
import WormholeVocabulary

/// `tail` and `dump` print a simulated device's records with device, peer and delivery state,
/// escaped for the terminal, and `dump --json` has them as members.
@Suite struct SessionTrafficOutputTests {
  private func journal(_ directory: String) throws {
    var options = Wormhole.Options()
    options.sender = "device"
    let wormhole = try Wormhole(directory: directory, options: options)
    try wormhole.record(
      identifier: "tap", bytes: 4, transiting: .sessionMessage,
      details: TrafficDetails(
        device: "desk/phone", peer: "desk/watch", delivery: .failed, transfer: "desk/phone#message-5"),
      error: "the counterpart device is not reachable (WCErrorCodeNotReachable 7007)")
    try wormhole.record(
      identifier: "doc", bytes: 7, transiting: .sessionFile,
      details: TrafficDetails(
        device: "desk/watch", peer: "desk/phone", delivery: .delivered, transfer: "desk/phone#3"))
    try wormhole.record(
      identifier: "evil", bytes: 1, transiting: .sessionContext,
      details: TrafficDetails(
        device: "ev\u{1B}[2Jil/phone", peer: "ev\u{1B}[2Jil/watch", delivery: .queued,
        transfer: "ev\u{1B}[2Jil/phone#context-1"))
  }

  @Test func tailShowsDeviceToPeerAndTheDeliveryState() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    try journal(home.path)
    let tail = try run(["tail", "--container", home.path])
    #expect(tail.status == 0, "\(tail.errors)")
    #expect(tail.lines.count == 3)
    #expect(tail.lines[0].contains(" tap 4 failed desk/phone -> desk/watch failed \"the counterpart"))
    #expect(tail.lines[1].contains(" doc 7 ok desk/watch <- desk/phone delivered"))
    #expect(!tail.output.contains("\u{1B}"))
    #expect(tail.lines[2].hasSuffix(#" ok "ev\u{1b}[2Jil/phone" -> "ev\u{1b}[2Jil/watch" queued"#))
    // JSON lines keep the fields as stored, escaped.
    let json = try run(["tail", "--json", "--container", home.path])
    let records = json.lines.compactMap(TrafficRecord.init(jsonLine:))
    #expect(records.map(\.delivery) == [.failed, .delivered, .queued])
    #expect(records.last?.device == "ev\u{1B}[2Jil/phone")
    #expect(!json.output.contains("\u{1B}"))
  }

  @Test func dumpPrintsTheFieldsInTextAndAsJSONMembers() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    try journal(home.path)
    let text = try run(["dump", "--container", home.path])
    #expect(text.status == 0, "\(text.errors)")
    #expect(text.output.contains(" tap 4 device desk/phone -> desk/watch failed seq=1 \"the counterpart"))
    #expect(text.output.contains(" doc 7 device desk/watch <- desk/phone delivered seq=2"))
    #expect(!text.output.contains("\u{1B}"))
    let dumped = try run(["dump", "--json", "--container", home.path])
    let document = try #require(try JSONSerialization.jsonObject(with: dumped.outputData) as? [String: Any])
    let traffic = try #require(document["traffic"] as? [[String: Any]])
    #expect(traffic.count == 3)
    #expect(traffic.map { $0["delivery"] as? String } == ["failed", "delivered", "queued"])
    #expect(traffic.first?["device"] as? String == "desk/phone")
    #expect(traffic.first?["peer"] as? String == "desk/watch")
    #expect(traffic.first?["transfer"] as? String == "desk/phone#message-5")
    #expect(traffic.last?["device"] as? String == "ev\u{1B}[2Jil/phone")
    #expect(!dumped.output.contains("\u{1B}"))
  }
}
