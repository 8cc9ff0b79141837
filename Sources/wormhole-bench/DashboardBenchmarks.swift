import Dashboard
import Dispatch
import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import MailboxWatcher
import Synchronization
import TerminalScreen
import WormholeVocabulary

// wormhole-bench dashboard: what a frame costs and what the dashboard holds, against baselines
// in the same run.

func dashboardBenchmarks() throws -> [BenchmarkRecord] {
  runBytesChildIfAsked()
  if let directory = ProcessInfo.processInfo.environment[dashboardMemoryChild] {
    try runDashboardMemoryChild(directory: directory)
  }
  var records = try frameBuildBenchmarks()
  records += try dashboardMemoryBenchmarks()
  records += try dashboardTerminalBenchmarks()
  return records
}

/// A state of `count` mailboxes in one directory, made in memory (no disk): what the frame
/// build sees.
private func syntheticState(count: Int, width: Int, height: Int) throws -> DashboardState {
  let directory: FileName = "/bench/AppGroup/group.bench"
  var observations: [FileName: MailboxObservation] = [:]
  observations.reserveCapacity(count)
  for index in 0..<count {
    let bytes = try KeyedArchiveEncoder().encodeBytes(
      .dictionary([
        ArchivedEntry(key: .string("index"), value: .integer(Int64(index))),
        ArchivedEntry(key: .string("title"), value: .string("mailbox \(index)")),
      ]))
    observations[FileName("m\(index)")] = .summarized(
      bytes: bytes, size: bytes.count, modifiedNanoseconds: 1_000_000_000)
  }
  var state = DashboardState(
    model: ModelState(), rootPaths: ["/bench"], width: width,
    height: height, now: 2_000_000)
  // Decodes answered at once, as the executor would have answered them before the frame: the
  // frames measured show the selected mailbox's contents, not "decoding …".
  _ = state.update(
    .modelEvents(
      [.directoryAppeared(directory), .directoryScanned(directory, mailboxes: observations, initial: true)],
      at: 2_000_000), decodingWith: DecodedMessage.init(decoding:))
  return state
}

private func frameBuildBenchmarks() throws -> [BenchmarkRecord] {
  var large = try syntheticState(count: 100_000, width: 200, height: 60)
  var small = try syntheticState(count: 1_000, width: 200, height: 60)
  // Scroll both to the middle; the selected mailbox's decode is answered as the executor would.
  _ = large.update(.key(.pageDown), decodingWith: DecodedMessage.init(decoding:))
  _ = small.update(.key(.pageDown), decodingWith: DecodedMessage.init(decoding:))
  var sink = DashboardView.render(large).width + DashboardView.render(small).width
  var largeTimes: [Double] = []
  var smallTimes: [Double] = []
  for _ in 0..<15 {
    let (ours, base) = alternate(rounds: 10) {
      sink &+= DashboardView.render(large).cells.count
    } baseline: {
      sink &+= DashboardView.render(small).cells.count
    }
    largeTimes.append(ours)
    smallTimes.append(base)
  }
  // A change arrives, then a frame: the reducer's share of a flood.
  let directory: FileName = "/bench/AppGroup/group.bench"
  let bytes = try KeyedArchiveEncoder().encodeBytes(.string("changed"))
  var serial: Int64 = 0
  func change(_ state: inout DashboardState, _ count: Int) {
    serial += 1
    let event = ModelEvent.mailboxChanged(
      directory: directory, identifier: FileName("m\(Int(serial) % count)"),
      .summarized(bytes: bytes, size: bytes.count, modifiedNanoseconds: serial))
    _ = state.update(.modelEvents([event], at: 2_000_000 + serial))
    sink &+= DashboardView.render(state).cells.count
  }
  let changes = alternate(rounds: 200) {
    change(&large, 100_000)
  } baseline: {
    change(&small, 1_000)
  }
  withExtendedLifetime(sink) {}
  return [
    BenchmarkRecord(
      name: "dashboard frame build, 200x60, 100,000 mailboxes", unit: "s", value: median(largeTimes),
      baselineName: "the same frame over 1,000 mailboxes", baseline: median(smallTimes),
      higherIsBetter: false,
      target: 1 / 1.5),
    BenchmarkRecord(
      name: "dashboard change applied + frame, 100,000 mailboxes (name order)", unit: "s",
      value: changes.ours,
      baselineName: "the same over 1,000 mailboxes", baseline: changes.baseline, higherIsBetter: false),
  ]
}

// MARK: Memory, in a fresh process

private let dashboardMemoryChild = "WORMHOLE_BENCH_DASHBOARD_DIRECTORY"

/// The child: watches `directory` as the dashboard does, builds its state, draws a frame, and
/// prints its resident bytes.
private func runDashboardMemoryChild(directory: String) throws -> Never {
  let collected = Mutex<[ModelEvent]>([])
  let queue = DispatchQueue(label: "bench.dashboard.watcher")
  let watcher = try MailboxWatcher(roots: [.container(directory)], queue: queue) { events in
    collected.withLock { $0 += events }
  }
  queue.sync { watcher.start() }
  var state = DashboardState(
    model: ModelState(), rootPaths: [directory], width: 200, height: 60,
    now: 1)
  _ = state.update(
    .modelEvents(
      collected.withLock { events in
        defer { events = [] }; return events
      }, at: 1))
  let frame = DashboardView.render(state)
  print(dashboardTrimmedResident())
  fflush(nil)
  withExtendedLifetime((state, frame, watcher)) {}
  exit(0)
}

private func dashboardMemoryBenchmarks() throws -> [BenchmarkRecord] {
  let count = 100_000
  let directory = NSTemporaryDirectory() + "/wormhole-bench-dashboard-\(getpid())"
  try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  for index in 0..<count {
    let bytes = try KeyedArchiveEncoder().encodeBytes(
      .dictionary([
        ArchivedEntry(key: .string("index"), value: .integer(Int64(index))),
        ArchivedEntry(key: .string("title"), value: .string("mailbox \(index)")),
      ]))
    guard FileManager.default.createFile(atPath: directory + "/m\(index).archive", contents: Data(bytes))
    else {
      throw BenchmarkFailure("cannot write the benchmark's mailboxes in \(directory)")
    }
  }
  let resident = try numberPrinted(
    byChildRunning: "dashboard", environment: [dashboardMemoryChild: directory])
  let limit = 150.0 * 1_000_000
  return [
    BenchmarkRecord(
      name: "dashboard resident memory, 100,000 mailboxes", unit: "bytes", value: resident,
      baselineName: "the target, 150 MB", baseline: limit, higherIsBetter: false, target: 1)
  ]
}

private func dashboardTrimmedResident() -> Double {
  if let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") {
    let trim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    _ = trim(0)
  }
  return residentBytes()
}
