import Foundation
import Testing
import Wormhole
import WormholeVocabulary

/// `tail` and `dump` print a push's or a deep link's subject and route, escaped, and `dump
/// --json` has the route object and the payload as members.
@Suite struct RouteTrafficOutputTests {
  static let payload = #"{"aps":{"notification_id":"promo-7"}}"#
  static let caught =
    #"{"taken":"catcher","subject":"promo-7","catcher":{"kind":"push","index":0,"pattern":"promo-.*","label":"app.routes:4"}}"#

  private func journal(_ directory: String) throws {
    var options = Wormhole.Options()
    options.sender = "device"
    let wormhole = try Wormhole(directory: directory, options: options)
    try wormhole.record(
      kind: .push, identifier: "promo", bytes: Self.payload.utf8.count, transiting: .file,
      details: TrafficDetails(device: "desk/phone", route: Self.caught, payload: Self.payload))
    try wormhole.record(
      kind: .deepLink, identifier: "", bytes: 20, transiting: .file,
      details: TrafficDetails(
        device: "desk/phone",
        route:
          #"{"taken":"unhandled","subject":"myapp://\u001b[2Jx","not_tried":[{"kind":"deep-link","index":3,"pattern":"x"}]}"#,
        payload: "myapp://\u{1B}[2Jx"))
  }

  @Test func tailShowsTheSubjectAndTheRouteTaken() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    try journal(home.path)
    let tail = try run(["tail", "--container", home.path])
    #expect(tail.status == 0, "\(tail.errors)")
    #expect(tail.lines.count == 2)
    #expect(
      tail.lines[0].hasSuffix(
        #" push promo 37 ok desk/phone subject="promo-7" route: catcher 0 "promo-.*" (app.routes:4)"#),
      "\(tail.lines[0])")
    #expect(
      tail.lines[1].hasSuffix(#"subject="myapp://\u{1b}[2Jx" route: unhandled; not tried: 1 catcher"#),
      "\(tail.lines[1])")
    #expect(!tail.output.contains("\u{1B}"))
  }

  @Test func dumpPrintsTheRouteInTextAndAsMembers() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    try journal(home.path)
    let text = try run(["dump", "--container", home.path])
    #expect(text.status == 0, "\(text.errors)")
    #expect(
      text.output.contains(#"seq=1 subject="promo-7" route: catcher 0 "promo-.*" (app.routes:4)"#),
      "\(text.output)")
    #expect(!text.output.contains("\u{1B}"))
    let dumped = try run(["dump", "--json", "--container", home.path])
    let document = try #require(try JSONSerialization.jsonObject(with: dumped.outputData) as? [String: Any])
    let traffic = try #require(document["traffic"] as? [[String: Any]])
    #expect(traffic.count == 2)
    let route = try #require(traffic.first?["route"] as? [String: Any])
    #expect(route["taken"] as? String == "catcher")
    #expect((route["catcher"] as? [String: Any])?["pattern"] as? String == "promo-.*")
    #expect(traffic.first?["payload"] as? String == Self.payload)
    #expect(traffic.last?["payload"] as? String == "myapp://\u{1B}[2Jx")
    #expect(!dumped.output.contains("\u{1B}"))
  }
}
