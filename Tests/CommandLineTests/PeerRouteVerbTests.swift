import Foundation
import Glibc
import Testing

/// `peer run --routes FILE`, and `push`/`open-url --device peer:NAME` reaching it, each peer its
/// own process on a hermetic home. Waits are on output lines, never on time.
@Suite struct PeerRouteVerbTests {
  typealias PeerHome = PeerVerbTests.PeerHome

  static let routes = """
    deep-link  myapp://item/\\d+  pass item
    deep-link  myapp://admin/.*  decline
    push       promo-.*          pass promo
    delegate                     print

    """

  func file(_ peers: PeerHome, _ name: String, _ text: String) throws -> String {
    let path = peers.path + "/" + name
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// The folders of the peers of `chat` (journals and mailboxes).
  func folders(_ peers: PeerHome) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: peers.path + "/peers/chat").filter {
      !$0.contains(".")
    }
    .map { peers.path + "/peers/chat/" + $0 }
  }

  func journal(_ folder: String) throws -> [[String: Any]] {
    let text = try String(contentsOfFile: folder + "/.wormhole-journal", encoding: .utf8)
    return try text.split(separator: "\n").map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
  }

  @Test func aPeerRoutesAPushToItsCatcherAndADeclinedLinkToItsDelegate() throws {
    let peers = PeerHome()
    let routes = try file(peers, "app.routes", Self.routes)
    let desk = try peers.peer("desk", ["--routes", routes, "--json"])
    let payload = #"{"aps":{"alert":"sale","notification_id":"promo-7"}}"#
    let pushed = try run(["push", "--device", "peer:desk", "-"] + peers.home, input: payload)
    #expect(pushed.status == 0, "\(pushed.errors)")
    #expect(pushed.lines == [#"catcher 0 "promo-.*" (\#(routes):3)"#], "\(pushed.output)")
    let folder = try #require(try folders(peers).first)
    let read = try run(["read", "promo", "--json", "--container", folder] + peers.home)
    #expect(read.status == 0 && read.output.contains("promo-7"), "\(read.output) \(read.errors)")

    let declined = try run(
      ["open-url", "--device", "peer:\(desk.label)", "myapp://admin/users", "--json"] + peers.home)
    #expect(declined.status == 0, "\(declined.errors)")
    let route = try #require(
      try JSONSerialization.jsonObject(with: Data(declined.output.utf8)) as? [String: Any])
    #expect(route["taken"] as? String == "delegate" && route["declined_by"] != nil, "\(declined.output)")
    // The delegate's print is on the peer's standard output, as JSON with peer run --json.
    #expect(
      desk.command.waitFor(#""kind":"deep-link","subject":"myapp://admin/users""#, inErrors: false),
      "\(desk.command.currentOutput)")

    let records = try journal(folder).filter { ["push", "deep-link"].contains($0["kind"] as? String) }
    #expect(records.map { $0["kind"] as? String } == ["push", "deep-link"])
    #expect(records.allSatisfy { $0["device"] as? String == "peer:" + desk.label }, "\(records)")
    #expect(records[0]["identifier"] as? String == "promo" && records[0]["payload"] as? String == payload)
    #expect((records[0]["route"] as? [String: Any])?["taken"] as? String == "catcher")
    #expect((records[1]["route"] as? [String: Any])?["taken"] as? String == "delegate")
    desk.command.interrupt()
    #expect(desk.command.finish().status == 0)
  }

  @Test func withoutRoutesAPeerLeavesItUnhandled() throws {
    let peers = PeerHome()
    _ = try peers.peer("lamp", [])
    let opened = try run(["open-url", "--device", "peer:lamp", "myapp://item/1"] + peers.home)
    #expect(opened.status == 0 && opened.lines == ["unhandled"], "\(opened.output) \(opened.errors)")
    let folder = try #require(try folders(peers).first)
    #expect(try journal(folder).last?["kind"] as? String == "deep-link")
    let bare = try run(["push", "--device", "peer:lamp", "-"] + peers.home, input: #"{"aps":{"id":"x"}}"#)
    #expect(bare.lines == ["unhandled, no notification identifier"], "\(bare.output) \(bare.errors)")
    // --push-key names the aps key pushes are matched on, with or without routes.
    _ = try peers.peer("bulb", ["--push-key", "id"])
    let keyed = try run(["push", "--device", "peer:bulb", "-"] + peers.home, input: #"{"aps":{"id":"x"}}"#)
    #expect(keyed.status == 0 && keyed.lines == ["unhandled"], "\(keyed.output) \(keyed.errors)")
    let empty = try peers.peer(["run", "--service", "chat", "--name", "x", "--push-key", ""])
    #expect(empty.status == 2 && empty.errors.contains("--push-key needs a key"), "\(empty.errors)")
  }

  @Test func aSessionPassIsRefusedForAPeerWithItsLine() throws {
    let peers = PeerHome()
    let routes = try file(
      peers, "session.routes",
      "push a.* pass a\npush b.* pass b session-message\ndelegate pass c session-file\n")
    let result = try peers.peer(["run", "--service", "chat", "--name", "desk", "--routes", routes])
    #expect(result.status == 2, "\(result.errors)")
    let lines = result.errors.split(separator: "\n").map(String.init)
    #expect(lines.count == 2, "\(result.errors)")
    #expect(lines[0].contains("session.routes:2: a peer has no session to pass session-message"), "\(lines)")
    #expect(lines.last?.contains("session.routes:3:") == true, "\(lines)")
    #expect(!result.errors.contains("is running"))
    #expect(try peers.peer(["list"]).output.isEmpty)
  }

  @Test func anUnknownPeerExitsThreeAndAnAmbiguousOneTwo() throws {
    let peers = PeerHome()
    let unknown = try run(["push", "--device", "peer:nobody", "-"] + peers.home, input: #"{"aps":{}}"#)
    #expect(unknown.status == 3 && unknown.errors.contains("peer:nobody is not running"), "\(unknown.errors)")
    let first = try peers.peer("twin", [])
    let second = try peers.peer("twin", [], service: "other")
    let ambiguous = try run(["open-url", "--device", "peer:twin", "myapp://x"] + peers.home)
    #expect(ambiguous.status == 2, "\(ambiguous.errors)")
    #expect(
      ambiguous.errors.contains("ambiguous") && ambiguous.errors.contains(first.label)
        && ambiguous.errors.contains(second.label), "\(ambiguous.errors)")
    // NAME#xxxx picks one of them (unless both ids end alike, which a new identity makes unlikely).
    if first.label != second.label {
      let picked = try run(["open-url", "--device", "peer:\(second.label)", "myapp://x"] + peers.home)
      #expect(picked.status == 0 && picked.lines == ["unhandled"], "\(picked.errors)")
    }
  }
}
