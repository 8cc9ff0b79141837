import Foundation
import Glibc
import TestSupport
import Testing

/// `pair list` over a broker: a pair whose devices run in two homes (two machines, as far as
/// either can tell) is listed as the device running in each home knows it, not from local run
/// locks: reachable, then unreachable within the keep-alive once the counterpart is stopped
/// (SIGSTOP), and "unknown" where nothing running can tell.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct PairListReachabilityTests {
  /// `pair list --json --home HOME`: the one pair's object.
  static func listed(_ home: BrokerHome) throws -> [String: Any] {
    let result = try WormholeChild.run(["pair", "list", "--json", "--home", home.path])
    try #require(result.status == 0, "\(result.errors)")
    let line = try #require(result.output.split(separator: "\n").first, "no pair listed")
    return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
  }

  static func text(_ home: BrokerHome) throws -> String {
    try WormholeChild.run(["pair", "list", "--home", home.path]).output
  }

  /// Counts the lines of `child`'s standard error that contain `text`.
  static func count(_ text: String, in child: WormholeChild) -> Int {
    child.errorText.components(separatedBy: "\n").filter { $0.contains(text) }.count
  }

  @Test func aPairOverABrokerIsListedAsItsRunningDeviceKnowsIt() throws {
    let fixture = try PairFixture(homes: 2)
    defer { fixture.remove() }
    let (broker, here, there) = (fixture.broker, fixture.homes[0], fixture.homes[1])
    // Nothing runs: nothing here can tell.
    let idle = try Self.listed(here)
    #expect(idle["reachable"] is NSNull, "\(idle)")
    #expect(idle["reachabilityUnknown"] as? String == "no device of the pair runs here")
    #expect(try Self.text(here).hasSuffix("reachability unknown (no device of the pair runs here)\n"))

    let keepAlive = ["WORMHOLE_MQTT_KEEPALIVE": "5"]
    func device(_ role: String, _ home: BrokerHome) throws -> WormholeChild {
      try WormholeChild(
        ["device", "run", "--pair", "pair", "--role", role, "--broker", broker.url, "--home", home.path],
        environment: keepAlive)
    }
    let phone = try device("phone", here)
    defer { phone.stop() }
    let watch = try device("watch", there)
    defer {
      kill(watch.process.processIdentifier, SIGCONT)
      watch.stop()
    }
    try #require(phone.waitForError(containing: "the watch is reachable", seconds: 20), "\(phone.errorText)")
    try #require(watch.waitForError(containing: "the phone is reachable", seconds: 20), "\(watch.errorText)")
    // Each home runs one device of the pair, and each knows the other reachable.
    for home in [here, there] {
      let object = try Self.listed(home)
      #expect(object["reachable"] as? Bool == true, "\(object)")
    }
    let phoneHere = try #require(try Self.listed(here)["phone"] as? [String: Any])
    #expect(phoneHere["activationState"] as? String == "activated", "\(phoneHere)")
    #expect(try Self.text(here).hasSuffix("; reachable\n"))

    // The watch stopped: the phone hears it silent within the keep-alive, and says so.
    let stopped = ContinuousClock.now
    kill(watch.process.processIdentifier, SIGSTOP)
    #expect(phone.waitForError(containing: "the watch is not reachable", seconds: 12), "\(phone.errorText)")
    let took = ContinuousClock.now - stopped
    #expect(took < .milliseconds(6250), "\(took)")
    let afterStop = try Self.listed(here)
    #expect(afterStop["reachable"] as? Bool == false, "\(afterStop)")
    #expect(try Self.text(here).hasSuffix("; not reachable\n"))
    // Where the stopped watch runs, its last word is not taken for the truth.
    let frozen = try Self.listed(there)
    #expect(frozen["reachable"] is NSNull, "\(frozen)")
    #expect((frozen["reachabilityUnknown"] as? String)?.contains("is stopped") == true, "\(frozen)")
    #expect((frozen["watch"] as? [String: Any])?["stopped"] as? Bool == true, "\(frozen)")

    // Continued, the watch is heard again: reachable on both sides.
    kill(watch.process.processIdentifier, SIGCONT)
    phone.errors.wait(seconds: 40) { _ in Self.count("the watch is reachable", in: phone) >= 2 }
    #expect(Self.count("the watch is reachable", in: phone) >= 2, "\(phone.errorText)")
    #expect(try Self.listed(here)["reachable"] as? Bool == true)
    // Its process gone, the phone's report goes with it: unknown again.
    phone.stop()
    #expect(try Self.listed(here)["reachable"] is NSNull)
  }
}
