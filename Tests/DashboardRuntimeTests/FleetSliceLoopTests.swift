import Dashboard
import DashboardRuntime
import FleetModel
import Testing

/// Posts one batch of broker messages as the loop starts, as a fleet source does with the
/// retained state of a large fleet.
private final class OneBatchSource: DashboardMessageSource {
  let batch: [FleetMessage]

  init(_ batch: [FleetMessage]) { self.batch = batch }

  func start(posting post: @escaping @Sendable (DashboardMessage) -> Void) { post(.fleet(batch, at: 0)) }

  func cancel() {}
}

/// The first batch of a large fleet does not hold the loop: it is applied a slice at a time, and
/// keys typed meanwhile are answered between slices.
@Suite struct FleetSliceLoopTests {
  /// 100 machines of 50 mailboxes, and a stranger's message last (dropped, and said so).
  static func bigBatch() -> [FleetMessage] {
    var inputs: [FleetInput] = []
    let payload = Array(
      ("{\"directory\":\"/d\",\"directory_bytes\":null,\"mailbox\":{\"identifier\":\"i\",\"identifier_bytes\":null,"
        + "\"present\":true,\"bytes\":0,\"modified\":null,\"versions\":1,\"history\":0,"
        + "\"last_change\":\"2025-11-30T10:00:00.000Z\",\"last_writer\":null,\"seq\":null,\"summary\":\"v\","
        + "\"error\":null},\"archive_base64\":null,\"archive_note\":\"not sent\"}").utf8)
    for machine in 0..<100 {
      for mailbox in 0..<50 {
        inputs.append(
          FleetInput(
            topic: "wormhole/v1/machines/machine-\(machine)/mailboxes/%2Fd/mailbox-\(mailbox)",
            payload: payload,
            isRetained: true))
      }
    }
    inputs.append(FleetInput(topic: "wormhole/v1/machines/x/unknown", payload: [1], isRetained: true))
    return inputs.map { FleetMessage($0, at: 0) }
  }

  @Test func aKeyQueuedBehindABigBatchIsAnsweredBeforeTheBatchIsAllApplied() throws {
    let batch = Self.bigBatch()
    #expect(batch.count > 5000)
    let clock = ManualClock()
    // The key is typed before the loop has applied the batch; `s` says "sorted by …".
    let terminal = InMemoryTerminal(
      width: 120, height: 32, clock: clock, script: keys("s") + [.waitFor("100 machines")] + keys("q"))
    var configuration = DashboardConfiguration(rootPaths: [], isReadOnly: false)
    configuration.broker = "mqtt://127.0.0.1:1"
    let loop = try DashboardLoop(
      terminal: terminal, source: ScriptedEventSource(), executor: MailboxEffectExecutor(isReadOnly: false),
      clock: clock, configuration: configuration, messageSources: [OneBatchSource(batch)])
    _ = try loop.run()
    #expect(terminal.failures.isEmpty, "\(terminal.failures)")
    let log = loop.state.messageLog.entries.map(\.text)
    let sorted = try #require(log.firstIndex { $0.hasPrefix("sorted by") }, "\(log)")
    let dropped = try #require(log.firstIndex { $0.contains("1 message dropped") }, "\(log)")
    // The key's answer comes before the end of the batch (its last message's drop).
    #expect(sorted < dropped, "\(log)")
    #expect(loop.state.fleet.mailboxCount == 5000)
    #expect(!loop.state.isLoadingFleet)
  }
}
