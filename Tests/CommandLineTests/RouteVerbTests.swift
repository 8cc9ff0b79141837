import Foundation
import Glibc
import Testing

/// `device run --routes FILE`, `push` and `open-url`, each run as its own process on a hermetic
/// home. Waits are on output lines, never on time.
@Suite struct RouteVerbTests {
  typealias PairHome = PairVerbTests.PairHome

  static let routes = """
    # KIND     PATTERN                ACTION
    deep-link  myapp://item/\\d+        pass item
    deep-link  myapp://admin/.*       decline
    deep-link  "myapp://slow/(a+)+$"  print
    push       promo-.*               pass promo
    delegate                          print

    """

  /// Writes `text` as `name` in the home and returns its path.
  func file(_ pairs: PairHome, _ name: String, _ text: String) throws -> String {
    let path = pairs.path + "/" + name
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  func device(_ pairs: PairHome, routes: String?, _ extra: [String] = []) throws -> RunningCommand {
    let arguments = try routes.map { ["--routes", try file(pairs, "app.routes", $0)] } ?? []
    return try pairs.device("phone", arguments + extra)
  }

  func journal(_ pairs: PairHome) throws -> [[String: Any]] {
    let path = pairs.path + "/pairs/p/phone/AppGroup/default/.wormhole-journal"
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return try text.split(separator: "\n").map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
  }

  @Test func aBadRoutesFileIsRefusedWithEveryLineBeforeTheDeviceStarts() throws {
    let pairs = try PairHome()
    let bad = try file(pairs, "bad.routes", "push (unclosed print\n# fine\nfoo x print\npush ok decline\n")
    let result = try run(["device", "run", "--pair", "p", "--role", "phone", "--routes", bad] + pairs.home)
    #expect(result.status == 2, "\(result.errors)")
    let lines = result.errors.split(separator: "\n").map(String.init)
    #expect(lines.count == 3, "\(result.errors)")
    #expect(lines[0].hasSuffix("bad.routes:1:15: bad pattern: missing closing parenthesis"), "\(lines)")
    #expect(lines[1].contains("bad.routes:3:1: unknown kind"), "\(lines)")
    #expect(lines[2].contains("bad.routes:4:") && lines[2].contains("cannot decline"), "\(lines)")
    #expect(!result.errors.contains("activated"))
    #expect(try pairs.pid(of: "phone") == nil)
    let missing = try run(
      ["device", "run", "--pair", "p", "--role", "phone", "--routes", pairs.path + "/none"] + pairs.home)
    #expect(
      missing.status == 2 && missing.errors.contains("cannot read the routes file"), "\(missing.errors)")
  }

  @Test func aPushIsRoutedPassedToItsMailboxAndRecordedWithItsRoute() throws {
    let pairs = try PairHome()
    let phone = try device(pairs, routes: Self.routes)
    let payload = #"{"aps":{"alert":"sale","notification_id":"promo-7"}}"#
    let pushed = try run(["push", "--device", "p:phone", "-"] + pairs.home, input: payload)
    #expect(pushed.status == 0, "\(pushed.errors)")
    #expect(pushed.lines == [#"catcher 0 "promo-.*" (\#(pairs.path)/app.routes:5)"#], "\(pushed.output)")
    let read = try run(["read", "promo", "--json", "--pair", "p", "--role", "phone"] + pairs.home)
    #expect(read.status == 0 && read.output.contains("promo-7"), "\(read.output) \(read.errors)")
    let records = try journal(pairs)
    let pass = try #require(records.first { $0["kind"] as? String == "pass" })
    let record = try #require(records.last)
    #expect(record["kind"] as? String == "push" && record["identifier"] as? String == "promo")
    #expect(record["device"] as? String == "p/phone" && record["bytes"] as? Int == payload.utf8.count)
    #expect(
      record["transfer"] as? String != nil && record["transfer"] as? String == pass["transfer"] as? String)
    #expect(record["payload"] as? String == payload)
    let route = try #require(record["route"] as? [String: Any])
    #expect(route["taken"] as? String == "catcher" && route["subject"] as? String == "promo-7")
    #expect((route["catcher"] as? [String: Any])?["index"] as? Int == 0)

    // --json prints the outcome object.
    let json = try run(["push", "--device", "p:phone", "-", "--json"] + pairs.home, input: payload)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
    #expect(object["taken"] as? String == "catcher", "\(json.output)")
    phone.interrupt()
    #expect(phone.finish().status == 0)
  }

  @Test func aDeclinedLinkGoesToTheDelegateAndACatastrophicPatternIsCutOff() throws {
    let pairs = try PairHome()
    let phone = try device(pairs, routes: Self.routes, ["--json"])
    let declined = try run(["open-url", "--device", "p:phone", "myapp://admin/users"] + pairs.home)
    #expect(declined.status == 0, "\(declined.errors)")
    #expect(declined.lines.first?.hasPrefix("delegate, declined by catcher 1") == true, "\(declined.output)")
    // The delegate prints, as JSON with device run --json.
    #expect(phone.waitFor(#""kind":"deep-link","subject":"myapp://admin/users""#, inErrors: false))
    let line = try #require(phone.currentOutput.split(separator: "\n").first)
    let printed = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect((printed["route"] as? [String: Any])?["taken"] as? String == "delegate")
    #expect(printed["payload"] as? String == "myapp://admin/users")

    let slow = "myapp://slow/" + String(repeating: "a", count: 5000) + "!"
    let cut = try run(["open-url", "--device", "p:phone", slow, "--json"] + pairs.home)
    #expect(cut.status == 0, "\(cut.errors)")
    let outcome = try #require(
      try JSONSerialization.jsonObject(with: Data(cut.output.utf8)) as? [String: Any])
    let cutOff = try #require(outcome["cut_off"] as? [[String: Any]])
    #expect(
      cutOff.first?["reason"] as? String == "PCRE2 match limit" && outcome["taken"] as? String == "delegate")
    // The device keeps answering.
    let item = try run(["open-url", "--device", "p:phone", "myapp://item/9"] + pairs.home)
    #expect(item.status == 0 && item.output.hasPrefix("catcher 0"), "\(item.output) \(item.errors)")
    phone.interrupt()
    #expect(phone.finish().status == 0)
  }

  @Test func withoutADelegateAnUnmatchedDeliveryIsUnhandled() throws {
    let pairs = try PairHome()
    let phone = try device(pairs, routes: "deep-link myapp://item/.* print\n")
    let result = try run(["open-url", "--device", "p:phone", "other://x"] + pairs.home)
    #expect(result.status == 0 && result.lines == ["unhandled"], "\(result.output) \(result.errors)")
    let push = try run(["push", "--device", "p:phone", "-"] + pairs.home, input: #"{"aps":{}}"#)
    #expect(push.lines == ["unhandled, no notification identifier"], "\(push.output) \(push.errors)")
    #expect(try journal(pairs).compactMap { $0["kind"] as? String } == ["deep-link", "push"])
    phone.interrupt()
    #expect(phone.finish().status == 0)
  }

  @Test func badInputExitsTwoWithTheReasonAndAStoppedDeviceThree() throws {
    let pairs = try PairHome()
    let big = #"{"aps":{"notification_id":""# + String(repeating: "x", count: 5000) + #""}}"#
    let cases: [([String], String?, String)] = [
      (
        ["push", "--device", "p:phone", "-"], big,
        "the payload is \(big.utf8.count) bytes; a push notification holds at most 4096"
      ),
      (["push", "--device", "p:phone", "-"], "[1]", "must be a JSON object"),
      (["push", "--device", "p:phone", "-"], #"{"alert":"x"}"#, #"no "aps" dictionary"#),
      (["push", "--device", "p:phone", "-"], "{", "the payload is"),
      (
        ["push", "--device", "peer:" + String(repeating: "x", count: 64), "-"], #"{"aps":{}}"#,
        "64 bytes long"
      ),
      (["push", "--device", "p", "-"], #"{"aps":{}}"#, "expected PAIR:ROLE"),
      (["push", "--device", "p:tablet", "-"], #"{"aps":{}}"#, "the role must be"),
      (["push", "-"], #"{"aps":{}}"#, "needs --device"),
      (["open-url", "--device", "p:phone", "no scheme"], nil, "not a URL to open"),
      (["open-url", "--device", "p:phone", "1x://a"], nil, "does not start with a scheme"),
    ]
    for (arguments, input, reason) in cases {
      let result = try run(arguments + pairs.home, input: input)
      #expect(result.status == 2, "\(arguments): \(result.errors)")
      #expect(result.errors.contains(reason), "\(arguments): \(result.errors)")
    }
    let stopped = try run(["open-url", "--device", "p:watch", "myapp://item/1"] + pairs.home)
    #expect(stopped.status == 3 && stopped.errors.contains("p:watch is not running"), "\(stopped.errors)")
    let pushed = try run(["push", "--device", "p:phone", "-"] + pairs.home, input: #"{"aps":{}}"#)
    #expect(pushed.status == 3 && pushed.errors.contains("is not running"), "\(pushed.errors)")
  }
}
