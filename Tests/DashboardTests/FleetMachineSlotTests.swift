import FleetModel
import Testing
import WormholeVocabulary

/// A machine's retained presence removed (an empty retained message, as `mosquitto_pub -r -n`
/// writes) when nothing else of it is left (no bridge info, no mailbox holding a message) forgets
/// it: 1,024 forged presences, removed again, no longer keep a real bridge out until a reload.
@Suite struct FleetMachineSlotTests {
  @Test func forgedMachinesRemovedFromTheBrokerFreeTheirSlots() {
    var fleet = FleetState()
    fleet.apply((0..<FleetState.machineLimit).map { Bridged.presence("fake\($0)", "online") }, at: 1)
    #expect(fleet.machineNames.count == FleetState.machineLimit)
    #expect(fleet.apply([Bridged.presence("real", "online")], at: 2).dropped == 1)
    let change = fleet.apply((0..<FleetState.machineLimit).map { Bridged.presence("fake\($0)", "") }, at: 3)
    #expect(fleet.machineNames.isEmpty)
    #expect(change.structuralMachines.count == FleetState.machineLimit)
    #expect(fleet.apply([Bridged.presence("real", "online")], at: 4).dropped == 0)
    #expect(fleet.machineNames == ["real"])
  }

  @Test func aMachineWithAMailboxOrABridgeInfoIsKeptWithoutPresence() {
    var fleet = FleetState()
    fleet.apply(
      [
        Bridged.presence("a", "online"), Bridged.mailbox("a", "/d", "x", .string("v")),
        Bridged.presence("b", "online"), Bridged.info("b", allowed: false, reason: "read-only"),
      ], at: 1)
    fleet.apply([Bridged.presence("a", ""), Bridged.presence("b", ""), Bridged.presence("c", "")], at: 2)
    #expect(fleet.machineNames == ["a", "b"])
    #expect(fleet.machines["a"]?.presence == .unknown)
    #expect(fleet.machines["b"]?.presence == .unknown)
  }

  @Test func aMachineWhoseMailboxesWereClearedIsForgottenWithThem() {
    var fleet = FleetState(mailboxLimit: 1)
    fleet.apply([Bridged.presence("a", "offline"), Bridged.mailbox("a", "/d", "x", .string("v"))], at: 1)
    fleet.apply([Bridged.cleared("a", "/d", "x"), Bridged.presence("a", "")], at: 2)
    #expect(fleet.machineNames.isEmpty)
    // Its mailbox no longer counts against the limit.
    #expect(fleet.apply([Bridged.mailbox("b", "/d", "y", .string("w"))], at: 3).dropped == 0)
  }

  @Test func theDashboardLetsGoOfAForgottenMachineUnderItsCursor() {
    var harness = DashboardHarness(width: 120, height: 30)
    harness.sendFleet(
      [Bridged.presence("gone", "offline"), Bridged.mailbox("gone", "/d", "x", .string("v"))], at: harness.now
    )
    harness.type("jjj")
    #expect(
      harness.state.selection == .remoteMailbox(machine: "gone", directory: "/d", identifier: "x"),
      "\(harness)")
    harness.sendFleet(
      [Bridged.cleared("gone", "/d", "x"), Bridged.presence("gone", "")], at: harness.now + 1)
    #expect(harness.state.fleet.machineNames.isEmpty)
    #expect(!harness.description.contains("gone"), "\(harness)")
    harness.type("jkr")
  }
}
