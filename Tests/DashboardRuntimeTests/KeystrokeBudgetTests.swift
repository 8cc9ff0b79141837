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

/// Keys stay answered under hostile input, shown by order of events, not by timing (figures
/// belong to `wormhole-bench hostile`): every key gets its frame while the heavy work is still
/// outstanding, which cannot happen if that work ran on the loop.
@Suite struct KeystrokeBudgetTests {
  /// Keys typed while a 50 MB mailbox appears and is selected, through the real watcher (which
  /// states such a file but keeps no bytes of it) and the real loop: each key is drawn, and the
  /// pane says the value is too large to show.
  @Test func keysAreAnsweredWhileAFiftyMegabyteMailboxArrives() throws {
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
    script += keys("G") + [.waitFor("Contents huge"), .waitFor("too large to show")]
    for _ in 0..<10 { script += keys("<Tab>") + [.waitForFrame] + keys("<S-Tab>") + [.waitForFrame] }
    let run = try LoopRun(
      source: source, executor: RecordingExecutor(MailboxEffectExecutor(isReadOnly: false)),
      rootPaths: [directory.path], realWaits: { watching.withLock { $0 } }, script: script + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(run.terminal.keyLatencies.count == 41)
  }

  /// A large value the watcher does keep (under its 1 MiB) is decoded off the loop (a `decode`
  /// effect on the executor): with the decode held back, keys typed after the value arrived are
  /// each drawn while the pane still says "decoding …"; the value shows once the decode lands.
  @Test func keysAreAnsweredWhileALargeSelectedValueIsStillBeingDecoded() throws {
    let group: FileName = "/w/group"
    let source = ScriptedEventSource(initial: initialScan(group, ["big": .integer(0)]))
    let large = observation(.array((0..<40_000).map { .integer(Int64($0)) }))
    if case .file(let bytes, _, _, _, _, _) = large { #expect((bytes?.count ?? 0) < 1 << 20) }
    let gate = DecodeGate(MailboxEffectExecutor(isReadOnly: false))
    var script: [InMemoryTerminal.Step] = [.waitFor("Contents big")]
    script += [.perform { source.deliver([.mailboxChanged(directory: group, identifier: "big", large)]) }]
    script += [.waitFor("decoding")]
    script += keys("<Tab>") + [.waitFor("f freeze  v view")]
    script += keys("<S-Tab>") + [.waitFor("s sort")]
    script += [.waitFor("decoding"), .perform { gate.open() }, .waitFor("[40000]")] + keys("q")
    let run = try LoopRun(source: source, executor: RecordingExecutor(gate), script: script)
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(gate.heldCount > 0)
  }
}

/// Holds every decode job back until ``open()``; writes and everything else go straight through.
final class DecodeGate: DashboardEffectExecutor {
  private let inner: any DashboardEffectExecutor
  private let held = Mutex<
    (isOpen: Bool, jobs: [(EffectJob, @Sendable (DashboardMessage) -> Void)], count: Int)
  >(
    (false, [], 0))

  init(_ inner: any DashboardEffectExecutor) { self.inner = inner }

  func execute(_ job: EffectJob, report: @escaping @Sendable (DashboardMessage) -> Void) {
    guard case .decode = job.effect else { return inner.execute(job, report: report) }
    let runNow = held.withLock { state -> Bool in
      if !state.isOpen {
        state.jobs.append((job, report))
        state.count += 1
      }
      return state.isOpen
    }
    if runNow { inner.execute(job, report: report) }
  }

  /// Lets the held decodes run, and every later one.
  func open() {
    let jobs = held.withLock { state in
      state.isOpen = true
      defer { state.jobs = [] }
      return state.jobs
    }
    for (job, report) in jobs { inner.execute(job, report: report) }
  }

  /// How many decodes were held back.
  var heldCount: Int { held.withLock { $0.count } }

  func waitUntilIdle() { inner.waitUntilIdle() }
}
