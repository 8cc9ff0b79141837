import Dashboard
import FleetModel
import FleetProtocol
import Testing

/// A reload of the fleet (the dashboard connected to the broker again) ends as soon as every
/// bridge's stated mailboxes (its bridge info's count) came again, instead of waiting for the
/// broker to go quiet; the quiet period stays the fallback, said on screen with what was missing.
@Suite struct FleetReloadCountTests {
  static func messages(_ inputs: [FleetInput], at now: Int64) -> [FleetMessage] {
    inputs.map { FleetMessage($0, at: now) }
  }

  @Test func aReloadEndsOnceEveryBridgesStatedMailboxesCameAgain() {
    var fleet = FleetState()
    let now: Int64 = 1_000
    let machines: [FleetInput] = [
      Bridged.presence("a", "online"), FleetShortfallTests.info("a", claiming: 2),
      Bridged.mailbox("a", "/d", "one", .integer(1)), Bridged.mailbox("a", "/d", "two", .integer(2)),
      Bridged.presence("b", "offline"), FleetShortfallTests.info("b", claiming: 1),
      Bridged.mailbox("b", "/e", "three", .integer(3)),
    ]
    fleet.apply(machines, at: now)
    // Again, but b's mailbox last: until it comes the reload goes on.
    var change = fleet.apply([.reloadStarted] + Self.messages(Array(machines.dropLast()), at: now), at: now)
    #expect(change.reload == nil, "\(String(describing: change.reload))")
    change = fleet.apply(Self.messages([machines[6]], at: now), at: now)
    var ended = FleetReload()
    ended.machines = 2
    ended.endedByCounts = true
    #expect(change.reload == ended)
    // The broker's quiet, later, ends nothing more.
    #expect(fleet.apply([.reloadFinished], at: now).reload == nil)
    #expect(fleet.mailboxCount == 3)
  }

  @Test func withoutEveryCountTheQuietPeriodEndsItAndSaysWhatItWaitedFor() {
    var fleet = FleetState()
    let now: Int64 = 1_000
    let machines: [FleetInput] = [
      Bridged.presence("new", "online"), FleetShortfallTests.info("new", claiming: 1),
      Bridged.mailbox("new", "/d", "one", .integer(1)),
      // A bridge of an older version states no count.
      Bridged.presence("old", "online"), Bridged.info("old", allowed: false, reason: "read-only"),
      Bridged.mailbox("old", "/d", "two", .integer(2)),
    ]
    fleet.apply(machines, at: now)
    var change = fleet.apply([.reloadStarted] + Self.messages(machines, at: now), at: now)
    #expect(change.reload == nil)
    change = fleet.apply([.reloadFinished], at: now)
    #expect(change.reload?.endedByCounts == false)
    #expect(
      change.reload?.waitingFor
        == "machine old, whose bridge states no mailbox count (an older bridge, or its info did not come)")
    // A broker that dropped some: one of two came again.
    var short = FleetState()
    short.apply(
      [FleetShortfallTests.info("m", claiming: 2), Bridged.mailbox("m", "/d", "x", .integer(1))], at: now)
    short.apply([.reloadStarted, FleetMessage(FleetShortfallTests.info("m", claiming: 2), at: now)], at: now)
    short.apply([FleetMessage(Bridged.mailbox("m", "/d", "x", .integer(1)), at: now)], at: now)
    #expect(
      short.apply([.reloadFinished], at: now).reload?.waitingFor == "machine m: 1 of 2 mailboxes came again")
    // A machine known before that nothing came of.
    var gone = FleetState()
    gone.apply(
      [FleetShortfallTests.info("g", claiming: 0), FleetShortfallTests.info("h", claiming: 0)], at: now)
    gone.apply([.reloadStarted, FleetMessage(FleetShortfallTests.info("h", claiming: 0), at: now)], at: now)
    let outcome = gone.apply([.reloadFinished], at: now).reload
    #expect(outcome?.waitingFor == "machine g, not heard again")
    #expect(outcome?.machinesGone == 1)
  }

  @Test func theStatusLineSaysHowTheReloadEnded() {
    var harness = DashboardHarness(width: 160, height: 30, mailboxes: ["local": .string("x")])
    harness.state.showFleet(broker: "mqtt://127.0.0.1:1883", historyDepth: 8)
    let whole: [FleetInput] = [
      Bridged.presence("a", "online"), FleetShortfallTests.info("a", claiming: 1),
      Bridged.mailbox("a", "/d", "one", .integer(1)),
    ]
    harness.sendFleet(whole, at: harness.now)
    harness.send(.fleet([.reloadStarted] + Self.messages(whole, at: harness.now), at: harness.now))
    #expect(
      harness.state.status?.text.contains("1 machine, nothing forgotten; every bridge's mailboxes came again")
        == true, "\(harness)")
    harness.send(
      .fleet([.reloadStarted] + Self.messages(Array(whole.prefix(2)), at: harness.now), at: harness.now))
    harness.send(.fleet([.reloadFinished], at: harness.now))
    #expect(
      harness.state.status?.text.contains(
        "; ended as the broker went quiet, still waiting for machine a: 0 of 1 mailboxes came again") == true,
      "\(harness)")
  }
}
