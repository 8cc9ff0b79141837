import Dispatch
import Foundation
import Glibc
import Inotify
import KeyedArchive
import MailboxModel
import MailboxWatcher
import Synchronization
import Wormhole
import WormholeVocabulary

/// Issue "Live mailbox model" targets: start-up on 100,000 mailboxes against a raw POSIX scan,
/// event-to-model latency against a raw inotify reader and `inotifywait -m`, and floods that
/// must end consistent with the disk.
func modelBenchmarks() throws -> [BenchmarkRecord] {
  let environment = ProcessInfo.processInfo.environment
  if let mode = environment[memoryChildMode], let directory = environment[memoryChildDirectory] {
    try runMemoryChild(mode: mode, directory: directory)
  }
  var records = try modelStartupBenchmarks()
  records += try modelLatencyBenchmarks()
  records += try modelFloodBenchmarks()
  records += try stalledFloodBenchmarks()
  records += try rawFloodBenchmarks()
  return records
}

// MARK: Memory, in fresh processes

private let memoryChildMode = "WORMHOLE_BENCH_MODEL_CHILD"
private let memoryChildDirectory = "WORMHOLE_BENCH_MODEL_DIRECTORY"

/// The child side of ``residentInChild(mode:directory:)``: loads the directory (the model, the
/// raw scan, or nothing), prints its resident bytes after trimming malloc, and exits.
private func runMemoryChild(mode: String, directory: String) throws -> Never {
  var sink = 0
  var model: LiveModel?
  if mode == "model" {
    model = try LiveModel(roots: [.container(directory)])
    sink = model?.snapshot.directories[FileName(directory)]?.presentCount ?? 0
  } else if mode == "raw" {
    let raw = rawScan(directory)
    sink = raw.count
    print(trimmedResident())
    _ = withExtendedLifetime(raw) { fflush(nil) }
    exit(0)
  }
  print(trimmedResident())
  fflush(nil)
  withExtendedLifetime(model) { _ = sink }
  exit(0)
}

/// Resident bytes of a fresh `wormhole-bench model` process that loaded `directory` as `mode`.
private func residentInChild(mode: String, directory: String) throws -> Double {
  try numberPrinted(
    byChildRunning: "model", environment: [memoryChildMode: mode, memoryChildDirectory: directory])
}

// MARK: Start-up

private func modelStartupBenchmarks() throws -> [BenchmarkRecord] {
  let count = 100_000
  let directory = try scratchDirectory()
  defer { removeTree(directory) }
  for index in 0..<count {
    let bytes = try KeyedArchiveEncoder().encodeBytes(
      .dictionary([
        ArchivedEntry(key: .string("index"), value: .integer(Int64(index))),
        ArchivedEntry(key: .string("title"), value: .string("mailbox \(index)")),
      ]))
    try writeFile(directory + "/m\(index).archive", bytes)
  }
  var sink = rawScan(directory).count  // warm the cache
  var model: LiveModel?
  let times = try alternate(rounds: 3) {
    model = nil
    model = try LiveModel(roots: [.container(directory)])
  } baseline: {
    sink &+= rawScan(directory).count
  }
  model?.cancel()
  let mailboxes = model?.snapshot.directories[FileName(directory)]?.presentCount ?? 0
  guard mailboxes == count else {
    throw BenchmarkFailure("the model found \(mailboxes) of \(count) mailboxes")
  }
  model = nil
  // Memory: resident bytes of fresh processes holding the model, the raw scan, or nothing.
  let withModel = try residentInChild(mode: "model", directory: directory)
  let withRaw = try residentInChild(mode: "raw", directory: directory)
  let bare = try residentInChild(mode: "none", directory: directory)
  precondition(sink > 0)
  return [
    BenchmarkRecord(
      name: "model_startup_100000_mailboxes", unit: "seconds", value: times.ours,
      baselineName: "raw readdir+fstatat+read of the same tree", baseline: times.baseline,
      higherIsBetter: false,
      target: 1.0 / 3.0, detail: ["mailboxes": Double(count)]),
    BenchmarkRecord(
      name: "model_resident_100000_mailboxes", unit: "bytes", value: withModel,
      baselineName: "a fresh process holding the raw scan (names, bytes, status)", baseline: withRaw,
      higherIsBetter: false, target: nil,
      detail: [
        "bare_process_resident_bytes": bare, "model_growth_bytes": withModel - bare,
        "raw_growth_bytes": withRaw - bare, "target_resident_bytes": 100e6,
        "under_target": withModel < 100e6 ? 1 : 0,
      ]),
  ]
}

private struct FileStampForBench {
  var size: Int
  var modified: Int
}

/// The baseline: what any program must do to know a directory's mailboxes.
private func rawScan(_ directory: String) -> [(String, [UInt8], FileStampForBench)] {
  var result: [(String, [UInt8], FileStampForBench)] = []
  guard let stream = opendir(directory) else { return result }
  defer { closedir(stream) }
  let descriptor = dirfd(stream)
  var buffer = [UInt8](repeating: 0, count: 64 * 1024)
  while let entry = readdir(stream) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) {
      String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
    }
    guard name.hasSuffix(".archive") else { continue }
    var status = stat()
    guard fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
    let file = openat(descriptor, name, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { continue }
    let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
    close(file)
    result.append(
      (
        name, Array(buffer[0..<max(count, 0)]),
        FileStampForBench(size: Int(status.st_size), modified: status.st_mtim.tv_sec)
      ))
  }
  return result
}

// MARK: Latency

private let latencyRate = 1000.0

/// Latency from a write to the model knowing it (ours: a library pass to the LiveModel update),
/// against a raw inotify reader (poll, read the renamed file) and `inotifywait -m`, each
/// woken by its own writer at the same steady rate in the same process.
private func modelLatencyBenchmarks() throws -> [BenchmarkRecord] {
  let perBlock = 1000
  var ours: [Double] = []
  var raw: [Double] = []
  var peer: [Double] = []
  let hasPeer = FileManager.default.isExecutableFile(atPath: "/usr/bin/inotifywait")
  for _ in 0..<3 {
    ours += try measureModelLatency(count: perBlock)
    raw += try measureRawLatency(count: perBlock)
    if hasPeer { peer += try measureInotifywaitLatency(count: perBlock) }
  }
  var records: [BenchmarkRecord] = []
  for (label, fraction, target) in latencyPercentiles {
    records.append(
      latencyRecord(
        "event_to_model_latency_\(label)", fraction: fraction, ours: ours,
        baselineName: "raw inotify reader (poll, read the file)", baseline: raw, target: target,
        detail: [
          "rate_per_second": latencyRate, "samples": Double(ours.count),
          "baseline_samples": Double(raw.count),
        ]))
    if hasPeer {
      records.append(
        latencyRecord(
          "event_to_model_latency_\(label)_vs_inotifywait", fraction: fraction, ours: ours,
          baselineName: "inotifywait -m (inotify-tools), line received", baseline: peer, target: nil,
          detail: ["peer_samples": Double(peer.count)]))
    }
  }
  if !hasPeer {
    diagnose("wormhole-bench: inotifywait not found (apt-get install inotify-tools); peer skipped")
  }
  return records
}

/// Latency under a flood: one thread writes as fast as it can (library passes for ours, plain
/// write + rename for the raw reader), each write to a mailbox of its own so that nothing
/// coalesces, and every write's time to the model (or to the raw reader) is counted.
func floodLatencyBenchmarks() throws -> [BenchmarkRecord] {
  let perBlock = 2000
  var ours: [Double] = []
  var raw: [Double] = []
  for _ in 0..<3 {
    ours += try measureModelLatency(count: perBlock, flood: true)
    raw += try measureRawLatency(count: perBlock, flood: true)
  }
  return [("p50", 0.5, 1.0 / 3.0), ("p99", 0.99, nil as Double?)].map { label, fraction, target in
    BenchmarkRecord(
      name: "event_to_model_latency_flood_\(label)", unit: "seconds", value: percentile(ours, fraction),
      baselineName: "raw inotify reader (poll, read the file) under the same flood",
      baseline: percentile(raw, fraction), higherIsBetter: false, target: target,
      detail: ["samples": Double(ours.count), "baseline_samples": Double(raw.count)])
  }
}

/// Send times by message index, filled by the writer and read by the observer.
private final class SendTimes: Sendable {
  private let times: Mutex<[Double]>
  private let latencies = Mutex<[Double]>([])
  private let seen = Mutex<Set<Int>>([])
  init(count: Int) { times = Mutex([Double](repeating: 0, count: count)) }
  func sent(_ index: Int, at time: Double) { times.withLock { $0[index] = time } }
  /// Records the latency of `index` the first time it is observed.
  func observed(_ index: Int, at time: Double) {
    guard index >= 0, seen.withLock({ $0.insert(index).inserted }) else { return }
    let sent = times.withLock { $0.indices.contains(index) ? $0[index] : 0 }
    if sent > 0 { latencies.withLock { $0.append(time - sent) } }
  }
  var count: Int { seen.withLock { $0.count } }
  var values: [Double] { latencies.withLock { $0 } }
}

private func measureModelLatency(count: Int, flood: Bool = false) throws -> [Double] {
  let directory = try scratchDirectory()
  defer { removeTree(directory) }
  let times = SendTimes(count: count)
  let model = try LiveModel(roots: [.container(directory)]) { update in
    let now = now()
    for (_, identifier) in update.changedMailboxes {
      times.observed(index(of: identifier.string ?? ""), at: now)
    }
  }
  defer { model.cancel() }
  var options = Wormhole.Options()
  options.journalLimit = 64 << 20
  let wormhole = try Wormhole(directory: directory, options: options)
  let message = ArchivedValue.dictionary([ArchivedEntry(key: .string("title"), value: .string("latency"))])
  try paced(count: count, flood: flood) { index in
    times.sent(index, at: now())
    try wormhole.passMessage(message, identifier: "l\(index)")
  }
  waitFor { times.count >= count }
  return times.values
}

private func measureRawLatency(count: Int, flood: Bool = false) throws -> [Double] {
  let directory = try scratchDirectory()
  defer { removeTree(directory) }
  let times = SendTimes(count: count)
  let stop = Atomic<Bool>(false)
  let ready = DispatchSemaphore(value: 0)
  let reader = Thread {
    // The reader owns its inotify instance; the watch exists before `ready` is signalled.
    guard let inotify = try? Inotify(),
      (try? inotify.addWatch(directory, mask: [.movedTo, .closeWrite])) != nil
    else {
      ready.signal()
      return
    }
    ready.signal()
    var poll = pollfd(fd: inotify.fileDescriptor, events: Int16(POLLIN), revents: 0)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !stop.load(ordering: .relaxed) {
      guard Glibc.poll(&poll, 1, 100) > 0, let events = try? inotify.readEvents() else { continue }
      for event in events where event.name.hasSuffix(".archive") {
        let file = open(directory + "/" + event.name, O_RDONLY | O_CLOEXEC)
        if file >= 0 {
          _ = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
          close(file)
        }
        times.observed(index(of: String(event.name.dropLast(".archive".count))), at: now())
      }
    }
  }
  reader.start()
  ready.wait()
  let bytes = try KeyedArchiveEncoder().encodeBytes(.string("latency"))
  try paced(count: count, flood: flood) { index in
    times.sent(index, at: now())
    try rawWriteAndRename(bytes, directory: directory, name: "l\(index).archive")
  }
  waitFor { times.count >= count }
  stop.store(true, ordering: .relaxed)
  return times.values
}

private func measureInotifywaitLatency(count: Int) throws -> [Double] {
  let directory = try scratchDirectory()
  defer { removeTree(directory) }
  let times = SendTimes(count: count)
  let peer = Process()
  peer.executableURL = URL(fileURLWithPath: "/usr/bin/inotifywait")
  peer.arguments = ["-m", "-q", "-e", "moved_to", "-e", "close_write", "--format", "%f", directory]
  let output = Pipe()
  peer.standardOutput = output
  peer.standardError = Pipe()
  try peer.run()
  defer {
    peer.terminate()
    peer.waitUntilExit()
  }
  let handle = output.fileHandleForReading
  let reader = Thread {
    var pending: [UInt8] = []
    while true {
      let chunk = handle.availableData
      if chunk.isEmpty { return }
      let now = now()
      pending += chunk
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        let name = String(decoding: pending[..<newline], as: UTF8.self)
        pending.removeSubrange(...newline)
        if name.hasSuffix(".archive") {
          times.observed(index(of: String(name.dropLast(".archive".count))), at: now)
        }
      }
    }
  }
  reader.start()
  // With -q inotifywait does not say when its watch is ready: probe until it reports a file.
  let probe = try KeyedArchiveEncoder().encodeBytes(.string("probe"))
  var probes = 0
  while times.count == 0 && probes < 200 {
    try rawWriteAndRename(probe, directory: directory, name: "l\(count - 1).archive")
    probes += 1
    usleep(10_000)
  }
  // The probe's index was observed without a send time, so it adds no latency.
  let bytes = try KeyedArchiveEncoder().encodeBytes(.string("latency"))
  try paced(count: count - 1) { index in
    times.sent(index, at: now())
    try rawWriteAndRename(bytes, directory: directory, name: "l\(index).archive")
  }
  waitFor { times.count >= count }
  return times.values
}

// MARK: Floods

/// A flood of library passes as fast as one thread can write: does the model keep up, and does
/// it end with every mailbox's final message? Against `inotifywait -m`, which has to show the
/// last write of every file to be consistent.
private func modelFloodBenchmarks() throws -> [BenchmarkRecord] {
  let passes = 20_000
  let identifiers = 100
  let directory = try scratchDirectory()
  defer { removeTree(directory) }
  var configuration = ModelConfiguration()
  configuration.matchWindowMilliseconds = 2_000
  let model = try LiveModel(roots: [.container(directory)], configuration: configuration)
  defer { model.cancel() }
  let (start, written) = try passFlood(directory: directory, passes: passes, identifiers: identifiers)
  let consistent = waitFor(seconds: 30) { mailboxesMatch(model.snapshot, directory) }
  let settled = now()
  let passed = model.snapshot.traffic.count
  var records = [
    BenchmarkRecord(
      name: "flood_model_consistent", unit: "passes/s", value: Double(passes) / (settled - start),
      baselineName: "passes/s written by one thread", baseline: Double(passes) / (written - start),
      higherIsBetter: true, target: nil,
      detail: [
        "consistent": consistent ? 1 : 0, "seconds_behind_after_last_write": settled - written,
        "traffic_entries_kept": Double(passed),
      ])
  ]
  if FileManager.default.isExecutableFile(atPath: "/usr/bin/inotifywait") {
    records.append(try inotifywaitFlood(passes: passes, identifiers: identifiers))
  }
  return records
}

/// Writes `passes` library passes over `identifiers` mailboxes as fast as one thread can, and
/// returns when it started and when the last one was written.
private func passFlood(directory: String, passes: Int, identifiers: Int) throws -> (
  start: Double, written: Double
) {
  var options = Wormhole.Options()
  options.journalLimit = 64 << 20
  let wormhole = try Wormhole(directory: directory, options: options)
  let start = now()
  for index in 0..<passes {
    try wormhole.passMessage(.integer(Int64(index)), identifier: "f\(index % identifiers)")
  }
  return (start, now())
}

private func inotifywaitFlood(passes: Int, identifiers: Int) throws -> BenchmarkRecord {
  let directory = try scratchDirectory()
  defer { removeTree(directory) }
  let peer = try startInotifywait(directory, events: ["moved_to", "close_write"])
  let (start, written) = try passFlood(directory: directory, passes: passes, identifiers: identifiers)
  let seen = peer.drain()
  let overflowed = seen.contains { $0.contains("Q_OVERFLOW") }
  // The last pass of each identifier is its final state; did inotifywait report it last?
  let finalNames = Set(
    seen.compactMap { line -> String? in
      guard line.hasPrefix("MOVED_TO") else { return nil }
      return line.split(separator: " ").last.map(String.init)
    })
  return BenchmarkRecord(
    name: "flood_inotifywait_peer", unit: "events", value: Double(seen.count),
    baselineName: "events a lossless reader reports (moved_to and close_write of each pass)",
    baseline: Double(passes * 2), higherIsBetter: true, target: nil,
    detail: [
      "overflowed": overflowed ? 1 : 0, "mailboxes_reported": Double(finalNames.count),
      "write_seconds": written - start,
    ])
}

private func mailboxesMatch(_ state: ModelState, _ directory: String) -> Bool {
  let disk = rawScan(directory)
  guard let mailboxes = state.directories[FileName(directory)]?.mailboxes else { return disk.isEmpty }
  var present = 0
  for (name, bytes, _) in disk {
    let identifier = FileName(String(name.dropLast(".archive".count)))
    guard mailboxes[identifier]?.current?.bytes == bytes else { return false }
    present += 1
  }
  return present == state.directories[FileName(directory)]?.presentCount
}

/// Both readers stalled through a flood of plain write+rename (five inotify events each, far
/// more than the kernel queues): ours is paused, `inotifywait` stopped with SIGSTOP. Ours must end
/// with every mailbox's final bytes; the peer can only report what the kernel kept.
private func stalledFloodBenchmarks() throws -> [BenchmarkRecord] {
  let flood = try FloodWrites()
  let writes = flood.writes
  let directory = try scratchDirectory()
  defer { removeTree(directory) }
  let model = try LiveModel(roots: [.container(directory)])
  model.suspend()
  try flood.write(into: directory, prefix: "s")
  let resumed = now()
  model.resume()
  let consistent = waitFor(seconds: 60) { mailboxesMatch(model.snapshot, directory) }
  let settle = now() - resumed
  model.cancel()
  var detail: [String: Double] = ["seconds_to_consistent_after_resume": settle, "writes": Double(writes)]
  var peerFraction = 0.0
  if FileManager.default.isExecutableFile(atPath: "/usr/bin/inotifywait") {
    let peerDirectory = try scratchDirectory()
    defer { removeTree(peerDirectory) }
    let peer = try startInotifywait(peerDirectory, events: ["moved_to"])
    kill(peer.process.processIdentifier, SIGSTOP)
    try flood.write(into: peerDirectory, prefix: "s")
    kill(peer.process.processIdentifier, SIGCONT)
    let lines = peer.drain()
    let reported = lines.filter { $0.hasPrefix("MOVED_TO") }.count
    peerFraction = Double(reported) / Double(writes)
    detail["inotifywait_overflowed"] = lines.contains { $0.contains("Q_OVERFLOW") } ? 1 : 0
    detail["inotifywait_moves_reported"] = Double(reported)
  }
  return [
    BenchmarkRecord(
      name: "stalled_flood_final_state", unit: "fraction of writes known",
      value: consistent ? 1 : 0,
      baselineName: "inotifywait -m stopped through the same flood (moves reported)",
      baseline: peerFraction, higherIsBetter: true, target: nil, detail: detail)
  ]
}

/// A flood of plain write+renames as fast as one thread makes them (well above the 3,000 a second
/// where Python's `watchdog` starts losing the last event): how many mailboxes end with their
/// final bytes known, ours against a `watchdog` observer that reads each file it hears about.
private func rawFloodBenchmarks() throws -> [BenchmarkRecord] {
  let flood = try FloodWrites()
  let (writes, names) = (flood.writes, flood.names)
  let directory = try scratchDirectory()
  defer { removeTree(directory) }
  let model = try LiveModel(roots: [.container(directory)])
  let start = now()
  try flood.write(into: directory, prefix: "r")
  let written = now()
  let consistent = waitFor(seconds: 30) { mailboxesMatch(model.snapshot, directory) }
  let behind = now() - written
  let known = finalStatesKnown(model.snapshot, directory)
  model.cancel()
  var detail: [String: Double] = [
    "writes_per_second": Double(writes) / (written - start), "consistent": consistent ? 1 : 0,
    "seconds_behind_after_last_write": behind, "mailboxes": Double(names),
  ]
  var peerKnown = 0.0
  if let peer = try watchdogFinalStates(writes: writes, names: names, contents: flood.contents) {
    peerKnown = peer.known
    detail["watchdog_writes_per_second"] = peer.rate
  } else {
    diagnose("wormhole-bench: python3 watchdog not importable; peer skipped")
  }
  return [
    BenchmarkRecord(
      name: "flood_final_states_known", unit: "mailboxes", value: Double(known),
      baselineName: "python watchdog observer reading each file it hears about", baseline: peerKnown,
      higherIsBetter: true, target: nil, detail: detail)
  ]
}

private func finalStatesKnown(_ state: ModelState, _ directory: String) -> Int {
  let mailboxes = state.directories[FileName(directory)]?.mailboxes ?? [:]
  return rawScan(directory).filter { name, bytes, _ in
    mailboxes[FileName(String(name.dropLast(".archive".count)))]?.current?.bytes == bytes
  }.count
}

private let watchdogScript = """
  import os, sys, time
  from watchdog.observers import Observer
  from watchdog.events import FileSystemEventHandler
  directory = sys.argv[1]
  final = {}
  last = [time.monotonic()]
  class Handler(FileSystemEventHandler):
      def on_any_event(self, event):
          path = getattr(event, "dest_path", "") or event.src_path
          if isinstance(path, bytes): path = path.decode()
          if not path.endswith(".archive"): return
          last[0] = time.monotonic()
          try:
              with open(path, "rb") as f: final[os.path.basename(path)] = f.read()
          except OSError: pass
  observer = Observer()
  observer.schedule(Handler(), directory)
  observer.start()
  print("ready", flush=True)
  sys.stdin.readline()
  while time.monotonic() - last[0] < 1.0: time.sleep(0.1)
  known = 0
  for name in os.listdir(directory):
      if not name.endswith(".archive"): continue
      with open(os.path.join(directory, name), "rb") as f:
          if final.get(name) == f.read(): known += 1
  print(known, flush=True)
  observer.stop()
  """

/// Runs the `watchdog` observer through the same flood; `nil` when Python has no `watchdog`.
private func watchdogFinalStates(writes: Int, names: Int, contents: [[UInt8]]) throws -> (
  known: Double, rate: Double
)? {
  let check = Process()
  check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  check.arguments = ["python3", "-c", "import watchdog"]
  check.standardError = Pipe()
  guard (try? check.run()) != nil else { return nil }
  check.waitUntilExit()
  guard check.terminationStatus == 0 else { return nil }
  let directory = try scratchDirectory()
  defer { removeTree(directory) }
  let peer = Process()
  peer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  peer.arguments = ["python3", "-c", watchdogScript, directory]
  let input = Pipe()
  let output = Pipe()
  peer.standardInput = input
  peer.standardOutput = output
  try peer.run()
  let reader = output.fileHandleForReading
  var text = ""
  while !text.contains("ready\n") {
    let chunk = reader.availableData
    if chunk.isEmpty { throw BenchmarkFailure("the watchdog peer did not start") }
    text += String(decoding: chunk, as: UTF8.self)
  }
  let start = now()
  for index in 0..<writes {
    try rawWriteAndRename(contents[index], directory: directory, name: "r\(index % names).archive")
  }
  let rate = Double(writes) / (now() - start)
  input.fileHandleForWriting.write(Data("done\n".utf8))
  let rest = String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
  peer.waitUntilExit()
  guard let known = Double(rest.trimmingCharacters(in: .whitespacesAndNewlines)) else {
    throw BenchmarkFailure("the watchdog peer printed \(rest)")
  }
  return (known, rate)
}

/// A running `inotifywait -m` whose output lines are collected.
private struct PeerWatcher {
  var process: Process
  var box: LineBox
  var finished: DispatchSemaphore

  /// Waits until no line arrived for 300 ms, stops the peer and returns what it printed.
  func drain() -> [String] {
    var last = -1
    while true {
      usleep(300_000)
      let count = box.lines.withLock { $0.count }
      if count == last { break }
      last = count
    }
    process.terminate()
    process.waitUntilExit()
    _ = finished.wait(timeout: .now() + 5)
    return box.lines.withLock { $0 }
  }
}

private final class LineBox: Sendable {
  let lines = Mutex<[String]>([])
}

private func startInotifywait(_ directory: String, events: [String]) throws -> PeerWatcher {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/inotifywait")
  process.arguments = ["-m"] + events.flatMap { ["-e", $0] } + ["--format", "%e %f", directory]
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  // "Watches established." on standard error means it is ready.
  var ready = Data()
  while !String(decoding: ready, as: UTF8.self).contains("established") {
    let chunk = errors.fileHandleForReading.availableData
    if chunk.isEmpty { break }
    ready += chunk
  }
  let box = LineBox()
  let finished = DispatchSemaphore(value: 0)
  let handle = output.fileHandleForReading
  Thread.detachNewThread {
    var pending: [UInt8] = []
    while true {
      let chunk = handle.availableData
      if chunk.isEmpty { break }
      pending += chunk
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: pending[..<newline], as: UTF8.self)
        pending.removeSubrange(...newline)
        box.lines.withLock { $0.append(line) }
      }
    }
    finished.signal()
  }
  return PeerWatcher(process: process, box: box, finished: finished)
}

// MARK: Helpers

private func index(of identifier: String) -> Int { Int(identifier.dropFirst()) ?? -1 }

/// Calls `body` `count` times at ``latencyRate`` per second.
/// Calls `body` for each index at the steady latency rate, or as fast as it can with `flood`.
private func paced(count: Int, flood: Bool = false, _ body: (Int) throws -> Void) throws {
  if flood {
    for index in 0..<count { try body(index) }
    return
  }
  let interval = 1.0 / latencyRate
  let start = now()
  for index in 0..<count {
    let due = start + Double(index) * interval
    let remaining = due - now()
    if remaining > 0 { usleep(UInt32(remaining * 1e6)) }
    try body(index)
  }
}

/// Waits (polling every millisecond) until `condition` holds or `seconds` pass.
@discardableResult
private func waitFor(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
  let deadline = now() + seconds
  while !condition() {
    if now() > deadline { return false }
    usleep(1_000)
  }
  return true
}

private func writeFile(_ path: String, _ bytes: [UInt8]) throws {
  let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  guard descriptor >= 0 else { throw BenchmarkFailure("cannot create \(path): \(errno)") }
  defer { close(descriptor) }
  let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
  guard written == bytes.count else { throw BenchmarkFailure("cannot write \(path): \(errno)") }
}

private func removeTree(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

/// Resident bytes after glibc's `malloc_trim` (looked up at run time) returns free pages.
private func trimmedResident() -> Double {
  if let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") {
    typealias Trim = @convention(c) (Int) -> Int32
    _ = unsafeBitCast(symbol, to: Trim.self)(0)
  }
  return residentBytes()
}
