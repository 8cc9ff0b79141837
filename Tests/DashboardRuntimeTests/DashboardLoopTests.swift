import Dashboard
import DashboardRuntime
import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import MailboxWatcher
import Synchronization
import TerminalInput
import TerminalTheme
import TestSupport
import Testing
import Wormhole
import WormholeVocabulary

/// The real loop, with an in-memory terminal, a scripted source and a manual clock: no tmux,
/// no sleeps; each test waits on what the loop draws.
@Suite struct DashboardLoopTests {
  let group: FileName = "/w/group"

  @Test func modelEventsAppearKeysMoveTheSelectionAndQuitEndsTheLoop() throws {
    let source = ScriptedEventSource(
      initial: initialScan(group, ["alpha": .string("first value"), "beta": .string("second value")]))
    let executor = RecordingExecutor(MailboxEffectExecutor(isReadOnly: false))
    let run = try LoopRun(
      source: source, executor: executor,
      script: [.waitFor("first value")] + keys("j") + [.waitFor("second value")]
        + [
          .perform {
            source.deliver([
              .mailboxChanged(directory: "/w/group", identifier: "gamma", observation(.integer(3)))
            ])
          }
        ]
        + [.waitFor("gamma")] + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(run.exit == .quit)
    #expect(run.loop.state.selection == .mailbox(directory: group, identifier: "beta"))
    #expect(run.terminal.starts == 1 && run.terminal.stops == 1 && !run.terminal.isActive)
    #expect(source.isCancelled)
    #expect(!run.terminal.ranOutOfScript)
  }

  /// `--history N` reaches the model the loop builds: versions past it are evicted.
  @Test func theModelKeepsTheHistoryDepthItWasGiven() throws {
    let source = ScriptedEventSource(initial: initialScan(group, ["alpha": .integer(0)]))
    var model = ModelConfiguration()
    model.historyDepth = 2
    let changes: [InMemoryTerminal.Step] = (1...5).flatMap { value -> [InMemoryTerminal.Step] in
      [
        .perform {
          source.deliver([
            .mailboxChanged(directory: "/w/group", identifier: "alpha", observation(.integer(value)))
          ])
        },
        .waitFor("alpha: \(value)"),
      ]
    }
    let run = try LoopRun(
      source: source, executor: RecordingExecutor(MailboxEffectExecutor(isReadOnly: false)), model: model,
      script: [.waitFor("alpha")] + changes + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    let mailbox = try #require(run.loop.state.model.mailbox("alpha", in: group))
    #expect(mailbox.history.count == 2)
    #expect(mailbox.current.map { DecodedMessage(decoding: $0).json } == "5")
  }

  /// `t` passes over a user theme that does not load (saying why) instead of sticking on it.
  @Test func nextThemePassesOverABrokenOne() throws {
    let directory = TemporaryDirectory(prefix: "wormhole-themes")
    defer { directory.remove() }
    try "this is = not a theme [\n".write(
      toFile: directory.path + "/zz-broken.theme", atomically: true, encoding: .utf8)
    let themes = ThemeCatalog(userDirectory: directory.path)
    #expect(themes.availableNames().last == "zz-broken")
    let last = try themes.theme("colorblind")
    let source = ScriptedEventSource(initial: initialScan(group, ["alpha": .integer(0)]))
    let run = try LoopRun(
      source: source, executor: RecordingExecutor(MailboxEffectExecutor(isReadOnly: false)), themes: themes,
      theme: last,
      script: [.waitFor("alpha")] + keys("t") + [.waitFor("theme failed: skipped")] + keys("t") + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    // colorblind -> (zz-broken, skipped) -> dark -> light
    #expect(run.loop.state.themeName == "light")
    #expect(run.loop.state.messageLog.entries.contains { $0.text.contains("zz-broken") })
  }

  @Test func aPassGoesThroughTheExecutorToTheDiskAndItsResultArrives() throws {
    let directory = TemporaryDirectory(prefix: "wormhole-runtime")
    defer { directory.remove() }
    let wormhole = try Wormhole(directory: directory.path)
    try wormhole.passMessage(.string("hello"), identifier: "greeting")
    let source = ScriptedEventSource(
      initial: initialScan(FileName(directory.path), ["greeting": .string("hello")]))
    let executor = RecordingExecutor(MailboxEffectExecutor(isReadOnly: false))
    let run = try LoopRun(
      source: source, executor: executor, rootPaths: [directory.path],
      script: [.waitFor("\"hello\"")] + keys("p") + [.waitFor("Pass a message")]
        + keys("<S-Tab><C-u>typed<Tab>[1, 2, 3]<Enter>") + [.waitFor("passed typed")] + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(run.exit == .quit)
    #expect(try wormhole.message(withIdentifier: "typed") == .array([.integer(1), .integer(2), .integer(3)]))
    #expect(try wormhole.trafficRecords().contains { $0.identifier == "typed" })
    #expect(executor.outcomes == ["pass to typed (file)"])
  }

  @Test func theRealWatcherAndExecutorShowAPassFromOutsideAndClear() throws {
    let directory = TemporaryDirectory(prefix: "wormhole-runtime")
    defer { directory.remove() }
    let wormhole = try Wormhole(directory: directory.path)
    try wormhole.passMessage(.string("hello"), identifier: "greeting")
    let source = try MailboxWatcherSource(roots: [.container(directory.path)])
    let executor = RecordingExecutor(MailboxEffectExecutor(isReadOnly: false))
    let run = try LoopRun(
      source: source, executor: executor, rootPaths: [directory.path], realWaits: { true },
      script: [.waitFor("greeting")]
        + [
          .perform {
            _ = try? Wormhole(directory: directory.path).passMessage(.integer(7), identifier: "outside")
          }
        ]
        + [.waitFor("outside")] + keys("gj") + [.waitFor("Contents greeting")] + keys("d") + [
          .waitFor("Clear greeting?")
        ]
        + keys("y") + [.waitFor("cleared greeting")] + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(run.exit == .quit)
    #expect(try wormhole.message(withIdentifier: "greeting") == nil)
    #expect(try wormhole.message(withIdentifier: "outside") == .integer(7))
  }

  /// The loop takes every event already there before drawing; it used to take only keys, and
  /// a resize, click or signal right after a key was dropped.
  @Test func aResizeRightAfterAKeyIsNotLost() throws {
    let source = ScriptedEventSource(initial: initialScan(group, ["alpha": .string("first value")]))
    let run = try LoopRun(
      source: source, executor: RecordingExecutor(MailboxEffectExecutor(isReadOnly: false)),
      script: [.waitFor("first value")] + keys("j") + [.event(.resize(width: 30, height: 10))]
        + [.waitFor("terminal too small")] + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(run.exit == .quit)
  }

  @Test func aSignalRightAfterAKeyEndsTheLoopWithThatSignal() throws {
    let source = ScriptedEventSource(initial: initialScan(group, ["alpha": .string("first value")]))
    let run = try LoopRun(
      source: source, executor: RecordingExecutor(MailboxEffectExecutor(isReadOnly: false)),
      script: [.waitFor("first value")] + keys("j") + [.event(.interrupted(signal: SIGTERM))])
    #expect(run.exit == .interrupted(signal: SIGTERM))
    #expect(!run.terminal.isActive)
    #expect(source.isCancelled)
  }

  /// A write that waits on a lock does not hold the loop: keys are answered meanwhile, and the
  /// result arrives when the write ends.
  @Test func keysAreAnsweredWhileAWriteIsStillRunning() throws {
    let gate = GatedExecutor()
    let executor = RecordingExecutor(gate)
    let source = ScriptedEventSource(
      initial: initialScan(group, ["alpha": .string("first value"), "beta": .string("second value")]))
    let run = try LoopRun(
      source: source, executor: executor,
      script: keys(":pass alpha 5<Enter>") + [.waitUntil("the pass to be running") { _ in executor.isBusy }]
        + keys("j") + [.waitFor("second value")] + keys("k") + [.waitFor("first value")]
        + [.perform { gate.open() }] + [.waitFor("passed alpha")] + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(run.exit == .quit)
    #expect(executor.writeJobs.count == 1)
  }

  /// The selected value is decoded by the real executor, off the loop, and shown when it
  /// lands; read-only changes nothing, since a decode writes nothing.
  @Test(arguments: [false, true]) func theRealExecutorDecodesTheSelectedValue(readOnly: Bool) throws {
    let source = ScriptedEventSource(
      initial: initialScan(group, ["alpha": .array([.integer(7), .integer(8)])]))
    let executor = RecordingExecutor(MailboxEffectExecutor(isReadOnly: readOnly))
    let run = try LoopRun(
      source: source, executor: executor, readOnly: readOnly,
      script: [.waitFor("Contents alpha"), .waitFor("[1]")] + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    let decodes = executor.jobs.filter {
      if case .decode = $0.effect { return true }
      return false
    }
    #expect(decodes.count == 1)
    #expect(executor.writeJobs.isEmpty)
    let serial = try #require(run.loop.state.model.mailbox("alpha", in: group)?.current?.serial)
    #expect(run.loop.state.decodedVersions.message(serial) != nil)
  }

  @Test func timePassesOnTheInjectedClock() throws {
    let clock = ManualClock()
    let source = ScriptedEventSource(initial: initialScan(group, ["alpha": .string("first value")]))
    let start = clock.now()
    let run = try LoopRun(
      source: source, executor: RecordingExecutor(MailboxEffectExecutor(isReadOnly: false)), clock: clock,
      script: [.waitFor("first value")] + [
        .waitUntil("a minute to pass") { _ in clock.now() - start >= 60_000 }
      ]
        + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(run.loop.state.now >= start + 60_000)
  }
}

/// An executor whose writes all wait until the test opens it, then succeed without writing; a
/// job that does not write (a decode) waits on no lock and runs at once, as the real one's
/// second queue does.
final class GatedExecutor: DashboardEffectExecutor {
  private let waiting = Mutex<(isOpen: Bool, jobs: [(EffectJob, @Sendable (DashboardMessage) -> Void)])>(
    (false, []))

  func execute(_ job: EffectJob, report: @escaping @Sendable (DashboardMessage) -> Void) {
    guard job.writes else {
      report(job.perform(with: MailboxOperations()))
      return
    }
    let runNow = waiting.withLock { state -> Bool in
      if !state.isOpen { state.jobs.append((job, report)) }
      return state.isOpen
    }
    if runNow { report(.effectFinished(.done(job.effect))) }
  }

  /// Lets every waiting job finish, from another thread, as a write that got its lock.
  func open() {
    let jobs = waiting.withLock { state in
      state.isOpen = true
      defer { state.jobs = [] }
      return state.jobs
    }
    Thread.detachNewThread {
      for (job, report) in jobs { report(.effectFinished(.done(job.effect))) }
    }
  }

  func waitUntilIdle() {}

}
