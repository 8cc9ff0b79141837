import Foundation
import TestSupport
import Testing

/// The real `bridge` says in its retained bridge info how many mailboxes it publishes, and says
/// it again when that number changes, so a reader can tell when fewer arrived.
@Suite(
  .enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"), .serialized,
  .hangLimit)
struct BridgeInfoCountTests {
  @Test func theBridgeInfoCountsTheMailboxesThePublisherHoldsRetained() throws {
    let setup = try BridgeTests.Setup()
    defer { setup.stop() }
    try setup.pass("a", "1")
    try setup.pass("b", "2")
    let watcher = try Subscriber(setup.broker, filter: "wormhole/v1/machines/#")
    defer { watcher.stop() }
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { bridge.stop() }
    let topic = "wormhole/v1/machines/m1/bridge"
    func latest(_ lines: [String]) -> String? { BridgeTests.payloads(lines, topic: topic).last }
    let two = watcher.lines.wait { latest($0)?.contains(#""mailboxes":2}"#) == true }
    #expect(latest(two)?.hasPrefix(#"{"version":1,"remote_writes":false,"reason":"#) == true, "\(two)")
    try setup.clear("a")
    let one = watcher.lines.wait { latest($0)?.contains(#""mailboxes":1}"#) == true }
    #expect(latest(one)?.contains(#""mailboxes":1}"#) == true, "\(one.suffix(4))")
    try setup.pass("c", "3")
    try setup.pass("d", "4")
    let three = watcher.lines.wait { latest($0)?.contains(#""mailboxes":3}"#) == true }
    #expect(latest(three)?.contains(#""mailboxes":3}"#) == true, "\(three.suffix(4))")
    let dump = try runWormhole(["dump", "--broker", setup.broker.url, "--json"])
    #expect(
      dump.output.contains(#""name":"m1","presence":"online","mailboxes_published":3,"#), "\(dump.output)")
  }
}
