import Dashboard
import DashboardRuntime
import DevicePairing
import DeviceSession
import Glibc
import TestSupport
import Testing

/// The pairs' branch over the real pair store: a device that runs, queues and stops shows so.
@Suite struct PairsSourceTests {
  @Test func aDeviceThatStartsQueuesAndStopsShowsSoInThePairsBranch() throws {
    let home = TemporaryDirectory(prefix: "wormhole-pairs")
    defer { home.remove() }
    let store = PairStore(home: home.path)
    let pair = try store.create(PairStore.name("desk"))
    let phone = try SimulatedDevice(store: store, address: pair.phone, applicationGroup: "group.test")
    try phone.session.activate()
    _ = try phone.session.updateApplicationContext(
      [1, 2, 3], identifier: "score", deliveringIdentical: false)
    _ = try phone.session.transferFile([9, 9], identifier: "photo")
    let pid = getpid()
    let executor = RecordingExecutor(MailboxEffectExecutor(isReadOnly: true))
    let run = try LoopRun(
      source: ScriptedEventSource(initial: []), executor: executor, readOnly: true, realWaits: { true },
      messageSources: [PairsSource(home: home.path)],
      script: [
        .waitFor("desk  phone ● watch ○  unreachable  1 queued"),
        .waitFor("phone activated  ctx score"),
        .waitFor("watch not running"),
      ] + keys("jj") + [
        .waitFor("state      activated, pid \(pid)"), .waitFor("#1 photo"), .perform { phone.stop() },
        .waitFor("phone not running"),
      ]
        + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(run.exit == .quit)
    #expect(run.loop.state.pair(named: "desk")?.phone.isRunning == false)
  }

  @Test func snapshotsReadContextsAndTheQueueOfAStoppedDevice() throws {
    let home = TemporaryDirectory(prefix: "wormhole-pairs")
    defer { home.remove() }
    let store = PairStore(home: home.path)
    #expect(PairsSource.snapshots(of: store).isEmpty)
    let pair = try store.create(PairStore.name("desk"))
    let watch = try SimulatedDevice(store: store, address: pair.watch, applicationGroup: "group.test")
    try watch.session.activate()
    _ = try watch.session.updateApplicationContext(
      [1, 2, 3, 4], identifier: "level", deliveringIdentical: false)
    _ = try watch.session.transferFile([7], identifier: "log")
    watch.stop()
    let snapshots = PairsSource.snapshots(of: store)
    #expect(snapshots.map(\.name) == ["desk"])
    let device = try #require(snapshots.first?.watch)
    #expect(device.runningPID == nil)
    #expect(device.applicationContext == [PairSnapshot.ContextEntry(identifier: "level", size: 4)])
    #expect(device.queuedTransfers.map(\.identifier) == ["log"])
    #expect(device.error == nil)
    #expect(snapshots.first?.phone.isRunning == false)
  }

  @Test func aQueuedTransferOfAStoppedDeviceIsCancelledFromTheContentsPane() throws {
    let home = TemporaryDirectory(prefix: "wormhole-pairs")
    defer { home.remove() }
    let store = PairStore(home: home.path)
    let pair = try store.create(PairStore.name("desk"))
    let phone = try SimulatedDevice(store: store, address: pair.phone, applicationGroup: "group.test")
    try phone.session.activate()
    _ = try phone.session.transferFile([9, 9], identifier: "photo")
    phone.stop()
    let executor = RecordingExecutor(MailboxEffectExecutor(isReadOnly: false))
    // The phone's lines: three, two contexts' titles and "none", the queue's title, the transfer.
    let run = try LoopRun(
      source: ScriptedEventSource(initial: []), executor: executor, realWaits: { true },
      messageSources: [PairsSource(home: home.path)],
      script: [.waitFor("desk ○○ reachability ? 1 queued")] + keys("jj<Tab>jjjjjjjjd")
        + [.waitFor("Cancel transfer #1 (photo) of desk phone?")] + keys("y")
        + [
          .waitFor("cancelled transfer #1 of desk phone"),
          .waitFor("desk  phone ○ watch ○  reachability ?"),
        ]
        + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(try store.transfers(of: pair.phone).isEmpty)
    #expect(executor.outcomes == ["cancel of transfer #1 of desk phone"])
  }
}
