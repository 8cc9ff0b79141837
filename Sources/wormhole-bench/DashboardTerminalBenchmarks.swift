import Dashboard
import Dispatch
import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import MailboxWatcher
import Synchronization
import TerminalBackend
import TerminalScreen
import TerminalTheme
import Wormhole
import WormholeVocabulary

// The dashboard through a real pseudo-terminal: bytes on the wire, idle CPU, and keystroke
// latency under a flood. Needs `wormhole-tui` built beside this program (swift build -c release).

/// A pseudo-terminal whose master this process reads on a thread.
final class PseudoTerminal: @unchecked Sendable {
  let master: Int32
  let slave: Int32
  private let state = Mutex<(bytes: Int, markers: [Double])>((0, []))
  private let marker: [UInt8]
  private var thread: Thread?

  init(width: Int, height: Int, marker: String = "☃") throws {
    var master: Int32 = -1
    var slave: Int32 = -1
    var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
    guard openpty(&master, &slave, nil, nil, &size) == 0 else {
      throw BenchmarkFailure("openpty: \(String(cString: strerror(errno)))")
    }
    self.master = master
    self.slave = slave
    self.marker = Array(marker.utf8)
    let thread = Thread { [weak self] in self?.drain() }
    self.thread = thread
    thread.start()
  }

  /// Bytes the program wrote so far, and when each marker character arrived.
  var bytes: Int { state.withLock { $0.bytes } }
  var markers: [Double] { state.withLock { $0.markers } }

  private func drain() {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var tail: [UInt8] = []
    while true {
      let count = read(master, &buffer, buffer.count)
      if count <= 0 {
        if count < 0 && errno == EINTR { continue }
        return
      }
      let time = now()
      let chunk = tail + buffer[0..<count]
      var found = 0
      var index = 0
      while index + marker.count <= chunk.count {
        if chunk[index..<(index + marker.count)].elementsEqual(marker) {
          found += 1
          index += marker.count
        } else {
          index += 1
        }
      }
      // Keep a partial marker for the next read, never a whole one.
      tail = Array(chunk.suffix(marker.count - 1))
      if tail.elementsEqual(marker.prefix(tail.count)) == false { tail = [] }
      state.withLock { state in
        state.bytes += count
        for _ in 0..<found { state.markers.append(time) }
      }
    }
  }

  func type(_ text: String) {
    var bytes = Array(text.utf8)
    _ = write(master, &bytes, bytes.count)
  }

  /// Starts `arguments` with the slave as its terminal, in a session of its own.
  func spawn(_ path: String, _ arguments: [String], environment: [String: String]) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for target in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
      posix_spawn_file_actions_adddup2(&actions, slave, target)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // POSIX_SPAWN_SETSID (0x80 in glibc), which Glibc's module does not export.
    posix_spawnattr_setflags(&attributes, 0x80)
    var argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var merged = ProcessInfo.processInfo.environment
    merged.merge(environment) { $1 }
    var envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in envp { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, path, &actions, &attributes, &argv, &envp)
    guard result == 0 else { throw BenchmarkFailure("spawn \(path): \(String(cString: strerror(result)))") }
    return pid
  }
}

/// Waits until `condition` holds, up to `seconds`.
func settle(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
  let deadline = now() + seconds
  while now() < deadline {
    if condition() { return true }
    usleep(10_000)
  }
  return condition()
}

func siblingProgram(_ name: String) throws -> String {
  let path = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    .appendingPathComponent(name).path
  guard access(path, X_OK) == 0 else {
    throw BenchmarkFailure("\(name) is not built beside wormhole-bench: run swift build -c release first")
  }
  return path
}

/// CPU seconds (user + system) a process has used, from /proc.
func cpuSeconds(_ pid: pid_t) -> Double {
  guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = text.lastIndex(of: ")")
  else { return 0 }
  let fields = text[text.index(after: close)...].split(separator: " ")
  guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
  return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// A home with `count` mailboxes in one group, for the dashboard to open.
func benchmarkHome(mailboxes count: Int) throws -> (home: String, wormhole: Wormhole) {
  let home = NSTemporaryDirectory() + "/wormhole-bench-pty-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
  var options = Wormhole.Options()
  options.sender = "bench"
  let wormhole = try Wormhole(applicationGroupIdentifier: "group.bench", home: home, options: options)
  for index in 0..<count {
    try wormhole.passMessage(
      .dictionary([.init(key: .string("index"), value: .integer(Int64(index)))]), identifier: "m\(index)")
  }
  return (home, wormhole)
}

func dashboardTerminalBenchmarks() throws -> [BenchmarkRecord] {
  try [bytesBenchmark(), idleBenchmark()] + keystrokeBenchmarks()
}

/// In the child that `bytesBenchmark` starts: draws its two frames and exits.
func runBytesChildIfAsked() {
  if ProcessInfo.processInfo.environment[bytesChild] != nil { runBytesChild() }
}

// MARK: Bytes for one changed row

private let bytesChild = "WORMHOLE_BENCH_BYTES_CHILD"

/// The child: draws a realistic frame, then the same frame with one row changed, each followed
/// by a line on standard error... which is the terminal too; so it pauses for the parent instead
/// (SIGSTOP), and the parent counts the bytes between stops.
private func runBytesChild() -> Never {
  let terminal = Terminal()
  do { try terminal.start() } catch { exit(3) }
  let theme = Theme(name: "bench", styles: ["list.selected": TextStyle(attributes: .reverse)])
  var state = (try? benchmarkFrameState(width: terminal.width, height: terminal.height))
  guard var frameState = state else { exit(4) }
  terminal.draw(DashboardView.render(frameState), theme: theme)
  raise(SIGSTOP)
  var screen = DashboardView.render(frameState)
  screen.write("one changed row ☃", row: 5, column: 2, role: "list.changed")
  terminal.draw(screen, theme: theme)
  raise(SIGSTOP)
  state = nil
  _ = frameState.update(.key(.character("q")))
  terminal.stop()
  exit(0)
}

private func benchmarkFrameState(width: Int, height: Int) throws -> DashboardState {
  var observations: [FileName: MailboxObservation] = [:]
  for index in 0..<200 {
    let bytes = try KeyedArchiveEncoder().encodeBytes(
      .dictionary([.init(key: .string("index"), value: .integer(Int64(index)))]))
    observations[FileName("m\(index)")] = .summarized(bytes: bytes, size: bytes.count, modifiedNanoseconds: 1)
  }
  var state = DashboardState(
    model: ModelState(), rootPaths: ["/b"], width: width, height: height,
    now: 1)
  let directory: FileName = "/b/g"
  _ = state.update(
    .modelEvents(
      [.directoryAppeared(directory), .directoryScanned(directory, mailboxes: observations, initial: true)],
      at: 1))
  return state
}

private func waitStopped(_ pid: pid_t) -> Bool {
  var status: Int32 = 0
  return waitpid(pid, &status, WUNTRACED) == pid && (status & 0xff) == 0x7f
}

private func bytesBenchmark() throws -> BenchmarkRecord {
  let pty = try PseudoTerminal(width: 200, height: 60)
  let pid = try pty.spawn(
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path, ["dashboard"],
    environment: [bytesChild: "1", "TERM": "xterm-256color"])
  guard waitStopped(pid) else { throw BenchmarkFailure("the bytes child did not draw its first frame") }
  _ = settle(seconds: 2) { false }  // let the reader take everything the first frame wrote
  let full = pty.bytes
  kill(pid, SIGCONT)
  guard waitStopped(pid) else { throw BenchmarkFailure("the bytes child did not draw its second frame") }
  _ = settle { pty.markers.count >= 1 }
  _ = settle(seconds: 1) { false }
  let oneRow = pty.bytes - full
  kill(pid, SIGCONT)
  var status: Int32 = 0
  waitpid(pid, &status, 0)
  return BenchmarkRecord(
    name: "bytes to the terminal when one row changes, 200x60", unit: "bytes", value: Double(oneRow),
    baselineName: "a full repaint", baseline: Double(full), higherIsBetter: false, target: 50)
}

/// Runs the real dashboard on `home` (with `arguments` after it) in a 200x60 pseudo-terminal
/// until `body` returns, once it has drawn its first frame; then ends it with SIGTERM and
/// collects it.
func withDashboard<Result>(
  on home: String, arguments: [String] = [], firstFrameBytes: Int,
  _ body: (PseudoTerminal, pid_t) throws -> Result
) throws -> Result {
  let pty = try PseudoTerminal(width: 200, height: 60)
  let pid = try pty.spawn(
    try siblingProgram("wormhole-tui"), ["--home", home] + arguments, environment: ["TERM": "xterm-256color"])
  defer { end(pid) }
  guard settle(seconds: 30, { pty.bytes > firstFrameBytes }) else {
    throw BenchmarkFailure("the dashboard drew nothing")
  }
  return try body(pty, pid)
}

/// Ends the dashboard with SIGTERM, and with SIGKILL if it has not ended 3 s later (a loop that
/// is stuck does not answer SIGTERM; the benchmark must not be stuck with it).
private func end(_ pid: pid_t) {
  kill(pid, SIGTERM)
  var status: Int32 = 0
  if settle(seconds: 3, { waitpid(pid, &status, WNOHANG) == pid }) { return }
  kill(pid, SIGKILL)
  waitpid(pid, &status, 0)
}

// MARK: Idle

private func idleBenchmark() throws -> BenchmarkRecord {
  let (home, _) = try benchmarkHome(mailboxes: 1_000)
  defer { try? FileManager.default.removeItem(atPath: home) }
  return try withDashboard(on: home, firstFrameBytes: 10_000) { _, pid in try idleShare(of: pid) }
}

private func idleShare(of pid: pid_t) throws -> BenchmarkRecord {
  _ = settle(seconds: 2) { false }
  let start = cpuSeconds(pid)
  let startTime = now()
  _ = settle(seconds: 10) { false }
  let used = cpuSeconds(pid) - start
  let share = used / (now() - startTime)
  return BenchmarkRecord(
    name: "dashboard CPU while idle for 10 s (share of one core)", unit: "fraction", value: share,
    baselineName: "the target, 0.5% of a core", baseline: 0.005, higherIsBetter: false, target: 1)
}

// MARK: Keystrokes under a flood

private func keystrokeLatencies(flood: Bool) throws -> [Double] {
  let (home, wormhole) = try benchmarkHome(mailboxes: 100)
  defer { try? FileManager.default.removeItem(atPath: home) }
  return try withDashboard(on: home, firstFrameBytes: 5_000) { pty, _ in
    try keystrokeLatencies(in: pty, flooding: flood ? wormhole : nil)
  }
}

/// Types 120 marker characters into the `:` line and times each until it is drawn, while
/// `flooding`, when given, passes 1,000 messages a second into the watched group.
private func keystrokeLatencies(in pty: PseudoTerminal, flooding wormhole: Wormhole?) throws -> [Double] {
  let flood = wormhole != nil
  let stop = Atomic<Bool>(false)
  let flooding = DispatchGroup()
  if flood {
    flooding.enter()
    Thread {
      var index = 0
      let start = now()
      while !stop.load(ordering: .relaxed) {
        index += 1
        _ = try? wormhole?.passMessage(.integer(Int64(index)), identifier: "m\(index % 100)")
        let due = start + Double(index) / 1000
        let wait = due - now()
        if wait > 0 { usleep(UInt32(wait * 1e6)) }
      }
      flooding.leave()
    }.start()
    _ = settle(seconds: 1) { false }
  }
  var latencies: [Double] = []
  pty.type(":")
  for round in 0..<120 {
    if round % 60 == 59 {
      pty.type("\u{1B}")
      _ = settle(seconds: 0.2) { false }
      pty.type(":")
    }
    let seen = pty.markers.count
    let sent = now()
    pty.type("☃")
    guard settle(seconds: 5, { pty.markers.count > seen }) else { continue }
    latencies.append(pty.markers[seen] - sent)
    usleep(20_000)
  }
  stop.store(true, ordering: .relaxed)
  flooding.wait()
  return latencies
}

private func keystrokeBenchmarks() throws -> [BenchmarkRecord] {
  let quiet = try keystrokeLatencies(flood: false)
  let flooded = try keystrokeLatencies(flood: true)
  guard quiet.count > 50, flooded.count > 50 else {
    throw BenchmarkFailure("too few keystrokes were seen on the screen (\(quiet.count), \(flooded.count))")
  }
  return [
    BenchmarkRecord(
      name: "keystroke-to-screen p50 under a flood of 1,000 passes/s", unit: "s", value: median(flooded),
      baselineName: "keystroke-to-screen p50 without a flood", baseline: median(quiet), higherIsBetter: false,
      target: 0.5, detail: ["p99": percentile(flooded, 0.99), "baseline_p99": percentile(quiet, 0.99)])
  ]
}
