import Dashboard
import DashboardRuntime
import Foundation
import KeyedArchive
import MailboxModel
import MailboxWatcher
import Synchronization
import TerminalInput
import TerminalTheme
import TestSupport
import Testing
import WormholeVocabulary

/// An executor in front of another that remembers every job and knows whether one is running:
/// the in-memory terminal waits for real only then.
final class RecordingExecutor: DashboardEffectExecutor {
  private let inner: any DashboardEffectExecutor
  private let record = Mutex<(jobs: [EffectJob], running: Int, messages: [String])>(([], 0, []))

  init(_ inner: any DashboardEffectExecutor) { self.inner = inner }

  func execute(_ job: EffectJob, report: @escaping @Sendable (DashboardMessage) -> Void) {
    record.withLock {
      $0.jobs.append(job)
      $0.running += 1
    }
    inner.execute(job) { [self] message in
      if case .effectFinished(let result) = message {
        record.withLock {
          $0.messages.append(result.effect.operation + (result.failure.map { " failed: " + $0 } ?? ""))
        }
      }
      report(message)
      record.withLock { $0.running -= 1 }
    }
  }

  func waitUntilIdle() { inner.waitUntilIdle() }

  /// Whether a job has not reported yet.
  var isBusy: Bool { record.withLock { $0.running > 0 } }
  /// Every job the loop handed over, oldest first.
  var jobs: [EffectJob] { record.withLock { $0.jobs } }
  /// Jobs that write.
  var writeJobs: [EffectJob] { jobs.filter(\.writes) }
  /// How each job ended, as the status line would say it.
  var outcomes: [String] { record.withLock { $0.messages } }
}

/// One run of the real loop over an in-memory terminal.
struct LoopRun {
  let terminal: InMemoryTerminal
  let loop: DashboardLoop
  let exit: DashboardExit

  /// Runs the loop over `source` and `executor` until it ends, playing `script`. While
  /// `realWaits` says so, every wait is a real one (for a real watcher, whose events come on
  /// their own); otherwise only while a job runs.
  init(
    source: any DashboardEventSource, executor: RecordingExecutor, rootPaths: [String] = ["/w"],
    readOnly: Bool = false, model: ModelConfiguration = ModelConfiguration(),
    themes: ThemeCatalog = ThemeCatalog(userDirectory: nil), theme: Theme = ThemeCatalog.shippedDefault,
    width: Int = 120,
    height: Int = 32, realWaits: @escaping @Sendable () -> Bool = { false },
    clock: ManualClock = ManualClock(), messageSources: [any DashboardMessageSource] = [],
    script: [InMemoryTerminal.Step]
  ) throws {
    terminal = InMemoryTerminal(
      width: width, height: height, clock: clock, isBusy: { realWaits() || executor.isBusy }, script: script)
    loop = try DashboardLoop(
      terminal: terminal, source: source, executor: executor, clock: clock,
      configuration: DashboardConfiguration(
        rootPaths: rootPaths, isReadOnly: readOnly, themes: themes, theme: theme, model: model),
      messageSources: messageSources)
    exit = try loop.run()
  }
}

/// The steps for `notation`, or none (and a recorded issue) when it does not read.
func keys(_ notation: String) -> [InMemoryTerminal.Step] {
  do {
    return try InMemoryTerminal.Step.keys(notation)
  } catch {
    Issue.record("bad key notation \(notation): \(error)")
    return []
  }
}

/// An archive of `value`, as a mailbox holds it.
func observation(_ value: ArchivedValue) -> MailboxObservation {
  let bytes = (try? KeyedArchiveEncoder().encodeBytes(value)) ?? []
  return .summarized(bytes: bytes, size: bytes.count, modifiedNanoseconds: 1_000_000_000)
}

/// What the watcher reports first for a directory holding `mailboxes`.
func initialScan(_ directory: FileName, _ mailboxes: [FileName: ArchivedValue]) -> [ModelEvent] {
  [
    .directoryAppeared(directory),
    .directoryScanned(directory, mailboxes: mailboxes.mapValues(observation), initial: true),
  ]
}

extension InMemoryTerminal {
  /// For each key handed to the loop and followed by a frame (the last, `q`, is not), the real
  /// milliseconds until that frame was drawn.
  var keyLatencies: [Double] {
    deliveredEvents.compactMap { delivered -> Double? in
      guard case .key = delivered.event else { return nil }
      guard let drawn = frameTimes.first(where: { $0 >= delivered.time }) else { return nil }
      return drawn - delivered.time
    }
  }
}
