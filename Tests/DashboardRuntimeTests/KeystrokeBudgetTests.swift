import Dashboard
import DashboardRuntime
import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import MailboxWatcher
import Synchronization
import TestSupport
import Testing
import Wormhole
import WormholeVocabulary

/// Keys stay answered under hostile input: the real milliseconds from a key to the frame that
/// shows it, measured on the in-memory terminal.
@Suite struct KeystrokeBudgetTests {
  /// The frame interval the loop may wait before drawing, a frame of work for the key, and
  /// as much again for a debug build on a shared machine (a decode on the loop takes seconds).
  static let budget = Double(3 * DashboardLoop.frameMilliseconds + 1)

  /// Keys typed while a 50 MB mailbox appears and is selected, through the real watcher (which
  /// states such a file but keeps no bytes of it) and the real loop.
  @Test func keysAreAnsweredWithinAFrameWhileAFiftyMegabyteMailboxArrives() throws {
    let directory = TemporaryDirectory(prefix: "wormhole-budget")
    defer { directory.remove() }
    try Wormhole(directory: directory.path).passMessage(.string("hello"), identifier: "greeting")
    let source = try MailboxWatcherSource(roots: [.container(directory.path)])
    // Waits are real only while the watcher has something to report.
    let watching = Mutex(true)
    let huge = InMemoryTerminal.Step.perform {
      let descriptor = open(directory.path("huge.archive"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      _ = ftruncate(descriptor, 50_000_000)
      close(descriptor)
    }
    var script: [InMemoryTerminal.Step] = [.waitFor("greeting"), huge]
    for _ in 0..<10 { script += keys("j") + [.waitForFrame] + keys("k") + [.waitForFrame] }
    script += [.waitFor("huge"), .perform { watching.withLock { $0 = false } }]
    script += keys("G") + [.waitFor("Contents huge")]
    for _ in 0..<10 { script += keys("<Tab>") + [.waitForFrame] + keys("<S-Tab>") + [.waitForFrame] }
    let run = try LoopRun(
      source: source, executor: RecordingExecutor(MailboxEffectExecutor(isReadOnly: false)),
      rootPaths: [directory.path], realWaits: { watching.withLock { $0 } }, script: script + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    let latencies = run.terminal.keyLatencies
    #expect(latencies.count == 41)
    #expect(latencies.allSatisfy { $0 <= Self.budget }, "key to frame, ms: \(latencies.map { Int($0) })")
  }

  /// A large value the watcher does keep (under its 1 MiB) is decoded off the loop (a `decode`
  /// effect on ``MailboxEffectExecutor``'s reading queue): a key typed while it arrives is
  /// answered within a frame, and the value shows once its decoding lands.
  @Test func aKeyIsAnsweredWithinAFrameWhileALargeSelectedValueArrives() throws {
    let group: FileName = "/w/group"
    let source = ScriptedEventSource(initial: initialScan(group, ["big": .integer(0)]))
    let large = observation(.array((0..<40_000).map { .integer(Int64($0)) }))
    if case .file(let bytes, _, _, _) = large { #expect((bytes?.count ?? 0) < 1 << 20) }
    var script: [InMemoryTerminal.Step] = [.waitFor("Contents big")]
    script += [.perform { source.deliver([.mailboxChanged(directory: group, identifier: "big", large)]) }]
    script += keys("<Tab>") + [.waitForFrame] + keys("<S-Tab>") + [.waitForFrame]
    script += [.waitFor("[40000]")] + keys("q")
    let run = try LoopRun(
      source: source, executor: RecordingExecutor(MailboxEffectExecutor(isReadOnly: false)), script: script)
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    let latencies = run.terminal.keyLatencies
    #expect(latencies.count == 2)
    #expect(latencies.allSatisfy { $0 <= Self.budget }, "key to frame, ms: \(latencies.map { Int($0) })")
  }
}
