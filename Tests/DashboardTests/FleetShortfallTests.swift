import Dashboard
import FleetModel
import FleetProtocol
import Testing

/// A machine whose bridge info says it publishes more mailboxes than arrived (a broker dropped
/// the rest beyond its queue, without a word) is said once the shortfall lasted, never shown as
/// if it were whole; a burst still arriving is not taken for one.
@Suite struct FleetShortfallTests {
  static func info(_ machine: String, claiming count: Int?) -> FleetInput {
    FleetInput(
      topic: BridgeTopics.bridge(machine: machine),
      payload: BridgeInfo(allowsRemoteWrites: false, reason: "read-only", mailboxCount: count).payload,
      isRetained: true)
  }

  @Test func aMachineShortOfItsBridgesCountIsSaidOnceItLasted() {
    var harness = DashboardHarness(mailboxes: ["local": .string("x")])
    harness.state.showFleet(broker: "mqtt://127.0.0.1:1883", historyDepth: 8)
    let start = harness.now
    harness.sendFleet(
      [Self.info("ci-3", claiming: 3), Bridged.mailbox("ci-3", "/d", "a", .string("1"))], at: start)
    // Arriving still: not said yet.
    harness.send(.clock(start + 500))
    #expect(
      harness.state.messageLog.entries.allSatisfy { !$0.text.contains("mailboxes arrived") }, "\(harness)")
    // One more arrives within the wait; the third never does.
    harness.sendFleet([Bridged.mailbox("ci-3", "/d", "b", .string("2"))], at: start + 600)
    harness.send(.clock(start + DashboardState.fleetShortfallMilliseconds + 10))
    #expect(
      harness.state.status?.text
        == "broker: machine ci-3: 2 of 3 mailboxes arrived: the broker may have dropped them (max_queued_messages)",
      "\(harness)")
  }

  @Test func aBurstThatCompletesWithinTheWaitIsNoShortfall() {
    var harness = DashboardHarness(mailboxes: ["local": .string("x")])
    harness.state.showFleet(broker: "mqtt://127.0.0.1:1883", historyDepth: 8)
    let start = harness.now
    harness.sendFleet(
      [Self.info("ci-3", claiming: 2), Bridged.mailbox("ci-3", "/d", "a", .string("1"))], at: start)
    harness.sendFleet([Bridged.mailbox("ci-3", "/d", "b", .string("2"))], at: start + 300)
    harness.send(.clock(start + DashboardState.fleetShortfallMilliseconds + 10))
    #expect(
      harness.state.messageLog.entries.allSatisfy { !$0.text.contains("mailboxes arrived") }, "\(harness)")
  }
}
