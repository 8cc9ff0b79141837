import DevicePairing
import DeviceSession
import Foundation
import Glibc
import Synchronization

/// Issue 13 targets, between two device processes: the phone runs in this process, the watch in
/// a child `wormhole-bench child-pair watch …`. Baselines, measured in the same run:
///
/// - a session message and its reply (1 KB each way) against a raw Unix-socket round trip of
///   the same bytes to a child `wormhole-bench child-pair raw …` that echoes them (target: within
///   2x, ratio 0.5);
/// - session messages sent back to back against the same bytes written down a raw socket;
/// - 10,000 transfers queued while the watch was away, delivered when both are up (from the
///   phone's start to the watch's last one stored), against `rename`s of as many files of the
///   same size in the same file system (target: half the rename rate).
///
/// `WORMHOLE_BENCH_PAIRS=messages` (or `queued`) runs only those figures, to iterate faster.
func pairBenchmarks() throws -> [BenchmarkRecord] {
  let home = try scratchDirectory()
  defer { try? FileManager.default.removeItem(atPath: home) }
  let store = PairStore(home: home)
  return try PairFigure.selected().flatMap { figure in
    switch figure {
    case .queued: [try queuedDeliveryBenchmark(store: store, home: home)]
    case .messages: try messageBenchmarks(store: store, home: home)
    }
  }
}

/// The figures of the pairs group.
private enum PairFigure: String, BenchFigure {
  case queued, messages
  static let environmentSwitch = "WORMHOLE_BENCH_PAIRS"
}

private let messageBytes = 1024
private let queuedTransfers = 10_000
private let transferBytes = 200
private let applicationGroup = "group.bench"

// MARK: Queued transfers

private func queuedDeliveryBenchmark(store: PairStore, home: String) throws -> BenchmarkRecord {
  let payload = [UInt8](repeating: 3, count: transferBytes)
  var rates: [Double] = []
  var queueRates: [Double] = []
  var renameRates: [Double] = []
  for round in 0..<3 {
    let name = try PairStore.name("queue\(round)")
    let pair = try store.create(name)
    // Queued while the watch is away.
    let queueStart = now()
    do {
      let phone = try SimulatedDevice(store: store, address: pair.phone, applicationGroup: applicationGroup)
      try phone.session.activate()
      for _ in 0..<queuedTransfers { try phone.session.transferFile(payload, identifier: "queued") }
      phone.stop()
    }
    queueRates.append(Double(queuedTransfers) / (now() - queueStart))
    let watch = try PairChild(["watch", home, "queue\(round)", String(queuedTransfers)])
    defer { watch.finish() }
    try watch.expect("ready")
    let start = now()
    let phone = try SimulatedDevice(store: store, address: pair.phone, applicationGroup: applicationGroup)
    try phone.session.activate()
    try watch.expect("delivered")
    rates.append(Double(queuedTransfers) / (now() - start))
    phone.stop()
    watch.finish()
    try store.delete(name, force: true)
    renameRates.append(try renameRate(count: queuedTransfers, payload: payload, directory: home))
  }
  var detail: [String: Double] = [
    "transfers": Double(queuedTransfers), "archive_bytes": Double(transferBytes),
    "queued_per_s": median(queueRates), "rounds": Double(rates.count),
  ]
  detail["tmpfs"] = isTemporaryFileSystem(home) ? 1 : 0
  return BenchmarkRecord(
    name: "pair_queued_delivery", unit: "transfers/s", value: median(rates),
    baselineName: "rename of as many files of the same size", baseline: median(renameRates),
    higherIsBetter: true, target: 0.5, detail: detail)
}

/// Renames per second of `count` files of `payload` from one directory under `directory` into
/// another (only the renames are timed).
private func renameRate(count: Int, payload: [UInt8], directory: String) throws -> Double {
  let from = directory + "/rename-from"
  let to = directory + "/rename-to"
  defer {
    try? FileManager.default.removeItem(atPath: from)
    try? FileManager.default.removeItem(atPath: to)
  }
  guard mkdir(from, 0o700) == 0, mkdir(to, 0o700) == 0 else {
    throw BenchmarkFailure("mkdir under \(directory): \(errno)")
  }
  for index in 0..<count {
    let descriptor = open(from + "/\(index).transfer", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw BenchmarkFailure("create \(from)/\(index): \(errno)") }
    let written = payload.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    _ = close(descriptor)
    guard written == payload.count else { throw BenchmarkFailure("write \(from)/\(index): \(errno)") }
  }
  let start = now()
  for index in 0..<count where rename(from + "/\(index).transfer", to + "/\(index).transfer") != 0 {
    throw BenchmarkFailure("rename \(index): \(errno)")
  }
  return Double(count) / (now() - start)
}

/// Whether `path` is on tmpfs, by the longest mount point in /proc/self/mounts that holds it.
func isTemporaryFileSystem(_ path: String) -> Bool { fileSystemType(path) == "tmpfs" }

// MARK: Messages

private func messageBenchmarks(store: PairStore, home: String) throws -> [BenchmarkRecord] {
  let pair = try store.create(PairStore.name("messages"))
  let watch = try PairChild(["watch", home, "messages", "0"])
  defer { watch.finish() }
  try watch.expect("ready")
  let phone = try SimulatedDevice(store: store, address: pair.phone, applicationGroup: applicationGroup)
  defer { phone.stop() }
  let reachable = DispatchSemaphore(value: 0)
  phone.session.setDeliveryHandler { if $0 == .reachabilityChanged(true) { reachable.signal() } }
  try phone.session.activate()
  guard reachable.wait(timeout: .now() + 10) == .success else {
    throw BenchmarkFailure("the watch child never became reachable")
  }
  let raw = try RawSocketPeer(directory: home, blockBytes: messageBytes)
  defer { raw.finish() }

  let payload = [UInt8](repeating: 7, count: messageBytes)
  let failures = Mutex<[String]>([])
  var phase = "round trips"
  var index = 0
  // As `pass --reply-timeout` through a running device does: the caller waits for the reply.
  func sessionRoundTrip() throws {
    index += 1
    let start = now()
    do {
      let reply = try phone.session.sendMessageAndWait(payload, identifier: "bench.echo", replyTimeout: 10)
      if reply.count != payload.count {
        failures.withLock { $0.append("\(phase) #\(index): a reply of \(reply.count) bytes") }
      }
    } catch {
      let line = "\(phase) #\(index): \(error.code.map(String.init) ?? "-") \(error) after \(now() - start) s"
      diagnose("pairs: reply failed: " + line)
      failures.withLock { $0.append(line) }
    }
  }
  let (ours, theirs) = try raw.alternatingRoundTrips(of: payload) {
    let start = now()
    try sessionRoundTrip()
    return now() - start
  }
  // Throughput: messages back to back, then one with a reply: it comes back after all of them.
  let streamed = 5000
  phase = "throughput"
  index = 0
  let throughput = try alternate(rounds: 5) {
    for _ in 0..<streamed { try phone.session.sendMessage(payload, identifier: "bench.stream") }
    try sessionRoundTrip()
  } baseline: {
    try raw.stream(payload, count: streamed)
  }
  let failed = failures.withLock { $0 }
  guard failed.isEmpty else {
    throw BenchmarkFailure("\(failed.count) replies failed: " + failed.joined(separator: "; "))
  }
  let microseconds = { (seconds: Double) in seconds * 1e6 }
  return [
    BenchmarkRecord(
      name: "pair_message_round_trip_p50", unit: "us", value: microseconds(median(ours)),
      baselineName: "raw Unix-socket round trip of the same bytes between two processes",
      baseline: microseconds(median(theirs)), higherIsBetter: false, target: 0.5,
      detail: ["payload_bytes": Double(messageBytes), "samples": Double(ours.count)]),
    BenchmarkRecord(
      name: "pair_message_round_trip_p99", unit: "us", value: microseconds(percentile(ours, 0.99)),
      baselineName: "raw Unix-socket round trip of the same bytes between two processes",
      baseline: microseconds(percentile(theirs, 0.99)), higherIsBetter: false, target: nil,
      detail: ["payload_bytes": Double(messageBytes), "samples": Double(ours.count)]),
    BenchmarkRecord(
      name: "pair_message_throughput", unit: "messages/s", value: Double(streamed) / throughput.ours,
      baselineName: "raw Unix-socket writes of the same bytes to another process",
      baseline: Double(streamed) / throughput.baseline, higherIsBetter: true, target: nil,
      detail: ["payload_bytes": Double(messageBytes), "messages": Double(streamed)]),
  ]
}

// MARK: Child processes

/// A child `wormhole-bench child-pair …` (or another child `command`): lines are read from its
/// standard output and written to its standard input; closing its standard input tells it to end.
final class PairChild {
  private let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private var isFinished = false

  init(_ arguments: [String], command: String = "child-pair") throws {
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = [command] + arguments
    process.standardInput = input
    process.standardOutput = output
    try process.run()
  }

  /// Reads the child's next line and fails unless it is `line`.
  func expect(_ line: String) throws {
    let got = try self.line()
    guard got == line else { throw BenchmarkFailure("the pair child said \(got), not \(line)") }
  }

  /// Reads the child's next line (without its line break).
  func line() throws -> String {
    let descriptor = output.fileHandleForReading.fileDescriptor
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let count = read(descriptor, &byte, 1)
      if count < 0 && errno == EINTR { continue }
      guard count == 1 else { throw BenchmarkFailure("the pair child ended mid-line or before a line") }
      if byte == UInt8(ascii: "\n") { break }
      bytes.append(byte)
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Writes `line` and a line break to the child's standard input.
  func send(_ line: String) { try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8)) }

  /// Closes its input and waits for it to exit; with `killing`, one still running once its
  /// input is closed is killed first (SIGKILL).
  func finish(killing: Bool = false) {
    guard !isFinished else { return }
    isFinished = true
    try? input.fileHandleForWriting.close()
    if killing && process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }
}

/// The baseline's far end: a child connected to a Unix socket of ours that echoes blocks or
/// swallows a stream, as told by an 8-byte command (`u32` mode, `u32` count) before each batch.
final class RawSocketPeer {
  private let connection: Int32
  private let child: PairChild
  private let blockBytes: Int
  private var buffer: [UInt8]

  init(directory: String, blockBytes: Int) throws {
    let path = directory + "/raw.sock"
    (connection, child) = try RawSocket.accept(at: path) { try PairChild(["raw", path, String(blockBytes)]) }
    self.blockBytes = blockBytes
    buffer = [UInt8](repeating: 0, count: blockBytes)
  }

  /// Tells the child to echo the next `count` blocks.
  func startEchoing(count: Int) throws { try command(mode: 1, count: count) }

  /// Writes `block` and reads it back.
  func roundTrip(_ block: [UInt8]) throws {
    guard writeAll(connection, block[...]), readAll(connection, &buffer, blockBytes) else {
      throw BenchmarkFailure("the raw child stopped")
    }
  }

  /// Round trips in 9 batches of 500, each batch of `ours` (which times one and returns its
  /// sample) followed by one of `block` here, so that machine noise hits both alike. The first
  /// batch warms both up and is not kept.
  func alternatingRoundTrips<Sample>(of block: [UInt8], _ ours: () throws -> Sample) throws -> (
    ours: [Sample], raw: [Double]
  ) {
    var samples: [Sample] = []
    var rawTimes: [Double] = []
    let batch = 500
    for round in 0..<9 {
      var batchSamples: [Sample] = []
      var batchTimes: [Double] = []
      for _ in 0..<batch { batchSamples.append(try ours()) }
      try startEchoing(count: batch)
      for _ in 0..<batch {
        let start = now()
        try roundTrip(block)
        batchTimes.append(now() - start)
      }
      if round > 0 {
        samples += batchSamples
        rawTimes += batchTimes
      }
    }
    return (samples, rawTimes)
  }

  /// Writes `count` blocks, one write each, and waits for the child's one-byte receipt.
  func stream(_ block: [UInt8], count: Int) throws {
    try command(mode: 2, count: count)
    for _ in 0..<count where !writeAll(connection, block[...]) {
      throw BenchmarkFailure("the raw child stopped")
    }
    guard readAll(connection, &buffer, 1) else { throw BenchmarkFailure("the raw child stopped") }
  }

  func finish() {
    _ = close(connection)
    child.finish()
  }

  private func command(mode: UInt32, count: Int) throws {
    guard writeAll(connection, rawCommand(mode: mode, count: UInt32(count))[...]) else {
      throw BenchmarkFailure("the raw child stopped")
    }
  }
}

private func rawCommand(mode: UInt32, count: UInt32) -> [UInt8] {
  (0..<4).map { UInt8(truncatingIfNeeded: mode >> (8 * $0)) }
    + (0..<4).map { UInt8(truncatingIfNeeded: count >> (8 * $0)) }
}

// MARK: The children's side

/// `child-pair watch HOME PAIR COUNT`: runs the pair's watch, echoes every message that asks for
/// a reply, says `ready` once activated and `delivered` once COUNT transfers are stored (in
/// increasing id order, or it says why not), and ends when its standard input closes.
/// `child-pair raw SOCKET BLOCK`: the raw baseline's far end (see `RawSocketPeer`).
func runPairChild(_ arguments: [String]) throws -> Never {
  switch (arguments.first, arguments.count) {
  case ("watch", 4):
    guard let count = Int(arguments[3]) else { throw BenchmarkFailure("child-pair watch: bad count") }
    try runWatchChild(home: arguments[1], pair: arguments[2], count: count)
  case ("raw", 3):
    guard let blockBytes = Int(arguments[2]), blockBytes > 0 else {
      throw BenchmarkFailure("child-pair raw: bad block size")
    }
    try runRawChild(path: arguments[1], blockBytes: blockBytes)
  case ("peer", _), ("copy", _):
    try runPeerChild(arguments)
  default:
    throw BenchmarkFailure("usage: child-pair watch HOME PAIR COUNT | raw SOCKET BLOCK | peer … | copy …")
  }
}

func say(_ line: String) {
  _ = writeAll(STDOUT_FILENO, Array((line + "\n").utf8)[...])
}

private func runWatchChild(home: String, pair: String, count: Int) throws -> Never {
  let store = PairStore(home: home)
  let device = try SimulatedDevice(
    store: store, address: DeviceAddress(pair: PairStore.name(pair), role: .watch),
    applicationGroup: applicationGroup)
  let session = device.session
  let received = Mutex((count: 0, last: UInt64(0)))
  session.setDeliveryHandler { delivery in
    switch delivery {
    case .message(let message):
      if message.replyRequested { try? session.reply(to: message, with: message.payload) }
    case .transfer(let transfer):
      let (total, inOrder) = received.withLock { state -> (Int, Bool) in
        let inOrder = transfer.id > state.last
        state.count += 1
        state.last = transfer.id
        return (state.count, inOrder)
      }
      if !inOrder { say("transfer \(transfer.id) out of order") }
      if total == count { say("delivered") }
    case .failure(let error):
      say("failure: \(error)")
    default:
      break
    }
  }
  try session.activate()
  say("ready")
  waitForStandardInputToClose()
  device.stop()
  exit(0)
}

private func runRawChild(path: String, blockBytes: Int) throws -> Never {
  let connection = try RawSocket.connect(to: path)
  var header = [UInt8](repeating: 0, count: 8)
  var block = [UInt8](repeating: 0, count: max(blockBytes, 64 << 10))
  while readAll(connection, &header, 8) {
    let word = { (start: Int) in (0..<4).reduce(UInt32(0)) { $0 | UInt32(header[start + $1]) << (8 * $1) } }
    let (mode, count) = (word(0), Int(word(4)))
    if mode == 1 {
      for _ in 0..<count {
        guard readAll(connection, &block, blockBytes), writeAll(connection, block[0..<blockBytes]) else {
          exit(0)
        }
      }
    } else {
      var left = count * blockBytes
      while left > 0 {
        let got = block.withUnsafeMutableBytes { read(connection, $0.baseAddress, min($0.count, left)) }
        if got < 0 && errno == EINTR { continue }
        guard got > 0 else { exit(0) }
        left -= got
      }
      guard writeAll(connection, [1][...]) else { exit(0) }
    }
  }
  exit(0)
}
