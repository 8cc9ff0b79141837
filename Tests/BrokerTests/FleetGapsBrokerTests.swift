import Dashboard
import DashboardRuntime
import FleetClient
import FleetProtocol
import Foundation
import Glibc
import MQTTClient
import TestSupport
import Testing
import Wormhole
import WormholeVocabulary

/// The fleet's gaps of issue 15 against a mosquitto of the test's own and a real `bridge`:
/// remote replays journaled as replays of their record, remote clear-all, `--remote-timeout`,
/// requests naming a key twice, and a fleet reloaded after a broker restart.
@Suite(
  .enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"), .serialized,
  .hangLimit)
struct FleetGapsBrokerTests {
  typealias Setup = BridgeTests.Setup

  static func keys(_ notation: String) -> [InMemoryTerminal.Step] { FleetDashboardTests.keys(notation) }

  /// The dashboard's loop over `setup`'s broker, writing through it, playing `script`.
  static func runDashboard(_ setup: Setup, script: [InMemoryTerminal.Step]) throws -> (
    InMemoryTerminal, DashboardLoop
  ) {
    let clock = ManualClock()
    let terminal = InMemoryTerminal(width: 200, height: 32, clock: clock, isBusy: { true }, script: script)
    var configuration = DashboardConfiguration(rootPaths: [])
    configuration.broker = setup.broker.url
    let loop = try DashboardLoop(
      terminal: terminal, source: ScriptedEventSource(),
      executor: MailboxEffectExecutor(
        isReadOnly: false, remoteWrites: FleetRemoteWrites(broker: setup.broker.address, timeout: 20)),
      clock: clock, configuration: configuration,
      messageSources: [
        FleetSource(broker: setup.broker.address, clientIdentifier: "fleet-gaps-\(getpid())", clock: clock)
      ])
    _ = try loop.run()
    return (terminal, loop)
  }

  @Test func aRemoteReplayAndAClearAllFromTheDashboardAreJournaledAsWhatTheyAre() throws {
    let setup = try Setup()
    defer { setup.stop() }
    try setup.pass("greeting", "\"hello\"")
    try setup.pass("other", "2")
    let original = try #require(try RemoteWriteTests.records(setup).first { $0.identifier == "greeting" })
    let (bridge, _) = try RemoteWriteTests.bridge(setup, machine: "m1", writes: true)
    defer { bridge.stop() }
    let (terminal, loop) = try Self.runDashboard(
      setup,
      script: [.waitFor("greeting"), .waitFor("other")] + Self.keys("jj")
        + [.waitFor("greeting: \"hello\"")]
        // r on the version in the contents pane: a replay of the record that wrote it.
        + Self.keys("<Tab>r") + [.waitFor("remote replay of greeting on m1 done")]
        // D on the directory: confirmed, then one clear-all.
        + Self.keys("<Esc>k") + Self.keys("D") + [.waitFor("Clear all 2 mailboxes of")] + Self.keys("y")
        // The bridge's traffic entry and its reply travel apart: wait for both.
        + [.waitFor("cleared-all"), .waitFor("remote clear-all of")] + Self.keys("q"))
    #expect(
      terminal.failures.isEmpty,
      "\(terminal.failures) \(loop.state.messageLog.entries.map(\.text)) \(bridge.diagnostics)")
    let log = loop.state.messageLog.entries.map(\.text)
    // The bridge's traffic entry of the clear-all (it names no mailbox) is shown, not dropped.
    #expect(loop.state.fleet.dropped == 0, "\(log)")
    let records = try RemoteWriteTests.records(setup)
    // Its reply names its journal record, as a pass's does.
    let clearAllSequence = records.last { $0.kind == .clearAll }?.sequence ?? 0
    #expect(
      log.contains {
        $0.hasPrefix("remote clear-all of ")
          && $0.hasSuffix(" on m1 done: applied on m1 (journal record \(clearAllSequence))")
      },
      "\(log)")
    let replay = try #require(
      records.first { $0.identifier == "greeting" && $0.sender == "bridge m1 (remote)" }, "\(records)")
    #expect(replay.replayOf == original.sequence, "\(replay)")
    let clearAll = records.filter { $0.kind == .clearAll }
    #expect(clearAll.count == 1, "\(records)")
    #expect(clearAll.first?.sender == "bridge m1 (remote)")
    #expect(!records.contains { $0.kind == .clear })
    let left = try FileManager.default.contentsOfDirectory(atPath: setup.container).filter {
      $0.hasSuffix(".archive")
    }
    #expect(left.isEmpty, "\(left)")
  }

  @Test func clearAllThroughTheBrokerIsOneRequestOrTheBridgesReason() throws {
    let setup = try Setup()
    defer { setup.stop() }
    try setup.pass("a", "1")
    try setup.pass("b", "2")
    let broker = ["--broker", setup.broker.url, "--machine", "m1", "--directory", setup.container]
    do {
      let (bridge, _) = try RemoteWriteTests.bridge(setup, machine: "m1", writes: false)
      defer { bridge.stop() }
      let refused = try RemoteWriteTests.run(["clear"] + broker + ["--all"])
      #expect(refused.status == 3, "\(refused.error)")
      #expect(refused.error.contains("bridge started without --allow-remote-writes"), "\(refused.error)")
      #expect(FileManager.default.fileExists(atPath: setup.container + "/a.archive"))
    }
    let (bridge, _) = try RemoteWriteTests.bridge(setup, machine: "m1", writes: true)
    defer { bridge.stop() }
    let both = try RemoteWriteTests.run(["clear"] + broker + ["--all", "a"])
    #expect(both.status == 2, "\(both.error)")
    let cleared = try RemoteWriteTests.run(["clear"] + broker + ["--all"])
    #expect(cleared.status == 0, "\(cleared.error) \(bridge.diagnostics)")
    #expect(!FileManager.default.fileExists(atPath: setup.container + "/a.archive"))
    #expect(!FileManager.default.fileExists(atPath: setup.container + "/b.archive"))
    let records = try RemoteWriteTests.records(setup)
    #expect(
      records.filter { $0.kind == .clearAll && $0.sender == "bridge m1 (remote)" }.count == 1, "\(records)")
    #expect(!records.contains { $0.kind == .clear })
  }

  @Test func theRemoteTimeoutIsCheckedAndItsExpiryNamesTheLikelyCauses() throws {
    let setup = try Setup()
    defer { setup.stop() }
    for bad in ["abc", "0", "-1", "nan", "4000"] {
      for verb in [["pass", "--machine", "m1", "x", "1"], ["clear", "--machine", "m1", "x"], ["dashboard"]] {
        let result = try RemoteWriteTests.run(verb + ["--broker", setup.broker.url, "--remote-timeout", bad])
        #expect(result.status == 2, "\(verb) \(bad): \(result.error)")
        #expect(result.error.contains("--remote-timeout: "), "\(verb) \(bad): \(result.error)")
        #expect(result.error.contains("is not a number of seconds from 0.1 to 3600"), "\(result.error)")
      }
    }
    let alone = try RemoteWriteTests.run(["pass", "x", "1", "--remote-timeout", "5"])
    #expect(alone.status == 2, "\(alone.error)")
    // A machine whose retained state says it takes writes, and no bridge listening (killed, or
    // the broker restarted): the request goes unanswered.
    try FleetDashboardTests.publishRetained(
      setup.broker, topic: "wormhole/v1/machines/phantom/presence", payload: "online")
    try FleetDashboardTests.publishRetained(
      setup.broker, topic: "wormhole/v1/machines/phantom/bridge",
      payload: "{\"version\":1,\"remote_writes\":true,\"reason\":null}")
    let started = Date()
    let silent = try RemoteWriteTests.run(
      [
        "pass", "--broker", setup.broker.url, "--machine", "phantom", "--directory", "/d", "--remote-timeout",
        "0.5",
        "x", "1",
      ])
    #expect(silent.status == 3, "\(silent.error)")
    #expect(Date().timeIntervalSince(started) < 8, "the 0.5 s timeout was not used")
    #expect(silent.error.contains("within 0.5 s"), "\(silent.error)")
    #expect(silent.error.contains("no bridge with --allow-remote-writes listens for it"), "\(silent.error)")
    #expect(silent.error.contains("the broker dropped the request"), "\(silent.error)")
  }

  @Test func aRequestNamingTheDirectoryTwiceIsRefusedWithTheReasonAndNotApplied() throws {
    let setup = try Setup()
    defer { setup.stop() }
    try setup.pass("victim", "1")
    let (bridge, _) = try RemoteWriteTests.bridge(setup, machine: "m1", writes: true)
    defer { bridge.stop() }
    let replies = try Subscriber(setup.broker, filter: "wormhole/v1/clients/att/replies")
    defer { replies.stop() }
    let before = try RemoteWriteTests.records(setup).count
    let request =
      "{\"version\":1,\"id\":\"dup1\",\"op\":\"clear\",\"directory\":\"/etc\",\"directory\":\(JSONText.string(setup.container)),"
      + "\"identifier\":\"victim\",\"reply_to\":\"wormhole/v1/clients/att/replies\"}"
    let publish = try ChildProcess(
      "/usr/bin/mosquitto_pub",
      arguments: [
        "-h", "127.0.0.1", "-p", "\(setup.broker.address.port)", "-q", "1", "-t",
        "wormhole/v1/machines/m1/requests",
        "-m", request,
      ])
    publish.waitUntilExit()
    let lines = replies.lines.wait { $0.contains { $0.contains("dup1") } }
    let reply = try #require(lines.first { $0.contains("dup1") }, "\(bridge.diagnostics)")
    #expect(reply.contains("\"ok\":false"), "\(reply)")
    #expect(reply.contains("appears twice"), "\(reply)")
    #expect(FileManager.default.fileExists(atPath: setup.container + "/victim.archive"))
    #expect(try RemoteWriteTests.records(setup).count == before)
  }

  @Test func aFleetReloadedAfterABrokerRestartForgetsMachinesNobodyPublishedAgain() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    try FleetDashboardTests.publishRetained(
      broker, topic: "wormhole/v1/machines/ghost/presence", payload: "online")
    try FleetDashboardTests.publishRetained(
      broker, topic: "wormhole/v1/machines/ghost/bridge",
      payload: "{\"version\":1,\"remote_writes\":true,\"reason\":null}")
    let (terminal, loop) = try FleetDashboardTests.runDashboard(
      broker, width: 160,
      script: [
        .waitFor("⇄ ghost"), .waitFor("1 machine (1 online)"),
        // Restarted without persistence: it forgets ghost; only alive publishes again.
        .perform {
          try? broker.restart()
          try? FleetDashboardTests.publishRetained(
            broker, topic: "wormhole/v1/machines/alive/presence", payload: "online")
        },
        .waitFor("the fleet was reloaded"), .waitFor("⇄ alive"),
      ] + Self.keys("q"))
    #expect(terminal.failures.isEmpty, "\(terminal.failures)")
    #expect(loop.state.fleet.machineNames == ["alive"], "\(loop.state.fleet.machineNames)")
    #expect(!(terminal.screen?.lines.contains { $0.contains("ghost") } ?? true), "\(terminal.screenText)")
    #expect(
      loop.state.messageLog.entries.contains { $0.text.contains("1 machine gone") },
      "\(loop.state.messageLog.entries)")
  }
}
