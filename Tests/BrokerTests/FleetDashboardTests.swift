import Dashboard
import DashboardRuntime
import Foundation
import Glibc
import MQTTClient
import TestSupport
import Testing

/// The fleet dashboard (`--broker`) against a real `bridge` process and a mosquitto of the
/// test's own: the loop with an in-memory terminal (waits block on the loop's wake pipe, the
/// broker's messages being real), and the real binary in tmux.
@Suite(
  .enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"), .serialized,
  .hangLimit)
struct FleetDashboardTests {
  /// Runs the dashboard's loop over the fleet of `broker` (no local directory), playing `script`.
  static func runDashboard(
    _ broker: TestBroker, readOnly: Bool = false, width: Int = 140, script: [InMemoryTerminal.Step]
  ) throws -> (InMemoryTerminal, DashboardLoop) {
    let clock = ManualClock()
    let terminal = InMemoryTerminal(width: width, height: 32, clock: clock, isBusy: { true }, script: script)
    var configuration = DashboardConfiguration(rootPaths: [], isReadOnly: readOnly)
    configuration.broker = broker.url
    let loop = try DashboardLoop(
      terminal: terminal, source: ScriptedEventSource(),
      executor: MailboxEffectExecutor(isReadOnly: readOnly),
      clock: clock, configuration: configuration,
      messageSources: [
        FleetSource(broker: broker.address, clientIdentifier: "fleet-test-\(getpid())", clock: clock)
      ])
    _ = try loop.run()
    return (terminal, loop)
  }

  static func keys(_ notation: String) -> [InMemoryTerminal.Step] {
    (try? InMemoryTerminal.Step.keys(notation)) ?? []
  }

  /// Publishes a retained message as any MQTT tool can.
  static func publishRetained(_ broker: TestBroker, topic: String, payload: String) throws {
    let publish = try ChildProcess(
      "/usr/bin/mosquitto_pub",
      arguments: [
        "-h", "127.0.0.1", "-p", "\(broker.address.port)", "-r", "-q", "1", "-t", topic, "-m", payload,
      ])
    publish.waitUntilExit()
    #expect(publish.terminationStatus == 0)
  }

  @Test func theDashboardShowsABridgedMachinesMailboxesContentsAndTrafficAndItsDeath() throws {
    let setup = try BridgeTests.Setup()
    defer { setup.stop() }
    try setup.pass("greeting", "\"hello\"")
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "ci-3")
    defer { bridge.stop() }
    let (terminal, loop) = try Self.runDashboard(
      setup.broker,
      script: [.waitFor("⇄ ci-3"), .waitFor("online 1"), .waitFor("greeting")] + Self.keys("jj")
        + [
          .waitFor("greeting: \"hello\""),
          .perform { try? setup.pass("later", "{\"n\":1}") },
          .waitFor("ci-3:later"), .waitFor("later"),
          .perform { bridge.stop(SIGKILL) },
          // The broker publishes its Last Will: offline, what it published stays.
          .waitFor("OFFLINE 2"), .waitFor("greeting"),
        ] + Self.keys("q"))
    #expect(terminal.failures.isEmpty, "\(terminal.failures) \(bridge.diagnostics)")
    #expect(loop.state.fleet.machines["ci-3"]?.presence == .offline)
    #expect(loop.state.fleet.dropped == 0)
  }

  @Test func aLateDashboardSeesTheRetainedStateAtOnceAndStrangersCounted() throws {
    let setup = try BridgeTests.Setup()
    defer { setup.stop() }
    try setup.pass("first", "1")
    try setup.pass("second", "[2]")
    let watcher = try Subscriber(setup.broker, filter: "wormhole/v1/machines/m1/mailboxes/#")
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    _ = watcher.lines.wait { $0.count >= 2 }
    watcher.stop()
    // It stops cleanly: offline, its mailboxes retained.
    bridge.stop(SIGTERM)
    try Self.publishRetained(setup.broker, topic: "wormhole/v1/machines/evil%2/presence", payload: "online")
    try Self.publishRetained(
      setup.broker, topic: "wormhole/v1/machines/evil/mailboxes/d/x", payload: "\u{1B}[2J{")
    let (terminal, loop) = try Self.runDashboard(
      setup.broker,
      script: [
        .waitFor("⇄ m1"), .waitFor("OFFLINE 2"), .waitFor("first"), .waitFor("second"), .waitFor("2 dropped"),
      ]
        + Self.keys("q"))
    #expect(terminal.failures.isEmpty, "\(terminal.failures)")
    #expect(loop.state.fleet.dropped == 2)
    #expect(loop.state.fleet.machineNames == ["m1"])
  }

  @Test func remoteActionsAreRefusedWithTheReasonAndNothingIsWritten() throws {
    let setup = try BridgeTests.Setup()
    defer { setup.stop() }
    try setup.pass("greeting", "\"hello\"")
    let file = setup.container + "/greeting.archive"
    let before = try Data(contentsOf: URL(fileURLWithPath: file))
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "m1")
    defer { bridge.stop() }
    for readOnly in [false, true] {
      // Read-only refuses every key that writes before it is looked at, remote ones too.
      let refusal =
        readOnly
        ? "read-only: clear the selected mailbox is disabled"
        : "clear on m1 refused: bridge started without --allow-remote-writes"
      let replayRefusal = readOnly ? "read-only: replay" : "replay on m1 refused"
      let (terminal, loop) = try Self.runDashboard(
        setup.broker, readOnly: readOnly, width: 200,
        script: [.waitFor("greeting")] + Self.keys("jj")
          + [
            .waitFor(
              readOnly ? "read-only" : "remote writes off: bridge started without --allow-remote-writes")
          ]
          + Self.keys("d") + [.waitFor(refusal)] + Self.keys("<Tab>r") + [.waitFor(replayRefusal)]
          + Self.keys("q"))
      #expect(terminal.failures.isEmpty, "\(terminal.failures)")
      #expect(loop.state.overlay == nil)
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
  }

  @Test func aRemoteClearAndPassFromTheDashboardAreAppliedOnDiskByTheBridge() throws {
    let setup = try BridgeTests.Setup()
    defer { setup.stop() }
    try setup.pass("greeting", "\"hello\"")
    let file = setup.container + "/greeting.archive"
    let bridge = try BridgeProcess(
      setup.broker, container: setup.container, machine: "m1", extra: ["--allow-remote-writes"])
    defer { bridge.stop() }
    let clock = ManualClock()
    let terminal = InMemoryTerminal(
      width: 160, height: 32, clock: clock, isBusy: { true },
      script: [.waitFor("greeting")] + Self.keys("jj") + [.waitFor("greeting: \"hello\"")] + Self.keys("dy")
        + [.waitFor("applied on m1")]
        + Self.keys(":pass sent {\"n\":7}<Enter>") + [.waitFor("sent"), .waitFor("m1:sent")] + Self.keys("q"))
    var configuration = DashboardConfiguration(rootPaths: [])
    configuration.broker = setup.broker.url
    let loop = try DashboardLoop(
      terminal: terminal, source: ScriptedEventSource(),
      executor: MailboxEffectExecutor(
        isReadOnly: false, remoteWrites: FleetRemoteWrites(broker: setup.broker.address)),
      clock: clock, configuration: configuration,
      messageSources: [
        FleetSource(broker: setup.broker.address, clientIdentifier: "fleet-rw-\(getpid())", clock: clock)
      ])
    _ = try loop.run()
    #expect(terminal.failures.isEmpty, "\(terminal.failures) \(bridge.diagnostics)")
    #expect(!FileManager.default.fileExists(atPath: file), "the bridge cleared it on disk")
    #expect(
      FileManager.default.fileExists(atPath: setup.container + "/sent.archive"),
      "the bridge passed it on disk")
  }

  @Test func theRealBinaryShowsTheFleetInATerminal() throws {
    let setup = try BridgeTests.Setup()
    defer { setup.stop() }
    try setup.pass("greeting", "\"hello\"")
    let bridge = try BridgeProcess(setup.broker, container: setup.container, machine: "ci-3")
    defer { bridge.stop() }
    let empty = TemporaryDirectory(prefix: "fleet-home")
    defer { empty.remove() }
    let pane = try TmuxPane(width: 120, height: 32) { _ in
      "env TERM=xterm-256color LANG=C.UTF-8 \(wormholePath) --home \(empty.path) --broker \(setup.broker.url)"
    }
    defer { pane.kill() }
    #expect(pane.waitFor("⇄ ci-3"), "\(pane.screen())")
    #expect(pane.waitFor("online 1"), "\(pane.screen())")
    #expect(pane.waitFor("1 machine (1 online)"), "\(pane.screen())")
    pane.send("G")
    #expect(pane.waitFor("greeting: \"hello\""), "\(pane.screen())")
    pane.send("q")
    #expect(pane.waitUntil { pane.isDead }, "\(pane.screen())")
  }
}
