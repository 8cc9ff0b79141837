import FleetModel
import FleetProtocol
import Foundation
import Glibc
import MailboxModel
import TestSupport
import Testing

/// What a bridge publishes besides each change: the retained traffic backlog a late dashboard
/// is handed, and nothing again for mailboxes that did not change.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct BridgeBacklogTests {
  /// Three passes made before anyone watches: a dashboard that subscribes afterwards is handed
  /// them in the retained backlog, in order, and a backlog published again adds none twice.
  @Test func aLateDashboardIsHandedTheRecentTrafficOnceEach() throws {
    let setup = try BridgeTests.Setup()
    defer { setup.stop() }
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { bridge.stop() }
    let names = ["first", "second", "third"]
    for name in names { try setup.pass(name, "\"\(name)\"") }
    let topic = "wormhole/v1/machines/m1/backlog"
    func passed(_ payload: String) -> [String] {
      var state = FleetState()
      let change = state.apply(
        [FleetInput(topic: topic, payload: Array(payload.utf8), isRetained: true)], at: 0)
      return change.traffic.filter { $0.kind.rawValue == "passed" }.map {
        String(decoding: $0.identifier.bytes, as: UTF8.self)
      }
    }
    /// The payloads of lines "RETAINED PAYLOAD" (`-F '%r %p'`), retained ones only if asked.
    func payloads(_ lines: [String], retainedOnly: Bool) -> [String] {
      lines.filter { !retainedOnly || $0.hasPrefix("1 ") }.map { String($0.dropFirst(2)) }
    }
    // Once a backlog holding the three passes went out (at most a second after them)...
    let watcher = try Subscriber(setup.broker, filter: topic, extra: ["-F", "%r %p"])
    defer { watcher.stop() }
    let published = watcher.lines.wait(seconds: 15) { lines in
      payloads(lines, retainedOnly: false).contains { passed($0) == names }
    }
    try #require(
      payloads(published, retainedOnly: false).contains { passed($0) == names },
      "\(published) \(bridge.diagnostics)")
    // ...a dashboard that subscribes is handed it, retained.
    let late = try Subscriber(setup.broker, filter: topic, extra: ["-F", "%r %p"])
    defer { late.stop() }
    let lines = late.lines.wait { !payloads($0, retainedOnly: true).isEmpty }
    let payload = try #require(payloads(lines, retainedOnly: true).first, "\(lines)")
    var checked = FleetState()
    checked.apply([FleetInput(topic: topic, payload: Array(payload.utf8), isRetained: true)], at: 0)
    #expect(passed(payload) == names, "\(checked.lastDropReason ?? "not dropped"): \(payload)")

    // The same backlog again (the bridge republishes it): nothing new to show.
    var state = FleetState()
    let input = FleetInput(topic: topic, payload: Array(payload.utf8), isRetained: false)
    let first = state.apply([input], at: 0)
    let again = state.apply([input], at: 0)
    #expect(first.traffic.count >= names.count)
    #expect(again.traffic.isEmpty, "\(again.traffic)")
    #expect(state.dropped == 0, "\(state.lastDropReason ?? "")")
  }

  /// A directory that appears makes the bridge look at every mailbox again: the ones that did
  /// not change are not sent again (before, each new directory republished every mailbox).
  @Test func aNewDirectoryRepublishesNoMailboxThatDidNotChange() throws {
    let setup = try BridgeTests.Setup()
    defer { setup.stop() }
    try setup.pass("kept", "1")
    // A tree root besides the container, where a directory appears.
    let tree = URL(fileURLWithPath: setup.directory.path + "/tree").standardizedFileURL.path
    try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
    let watcher = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/mailboxes/#")
    defer { watcher.stop() }
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "m1", extra: [tree])
    defer { bridge.stop() }
    let kept = setup.mailboxTopic("m1", "kept")
    _ = watcher.lines.wait { !BridgeTests.payloads($0, topic: kept).isEmpty }
    try FileManager.default.createDirectory(atPath: tree + "/sub", withIntermediateDirectories: true)
    let result = try runWormhole(["pass", "inner", "2", "--container", tree + "/sub"])
    try #require(result.status == 0)
    let inner = "wormhole/v1/machines/m1/mailboxes/\(topicLevel(tree + "/sub"))/inner"
    let lines = watcher.lines.wait { !BridgeTests.payloads($0, topic: inner).isEmpty }
    try #require(!BridgeTests.payloads(lines, topic: inner).isEmpty, "\(lines) \(bridge.diagnostics)")
    // One more change after the new directory, so that anything the rescan sent is here too.
    try setup.pass("later", "3")
    let after = watcher.lines.wait {
      !BridgeTests.payloads($0, topic: setup.mailboxTopic("m1", "later")).isEmpty
    }
    #expect(BridgeTests.payloads(after, topic: kept).count == 1, "\(after)")
  }
}
