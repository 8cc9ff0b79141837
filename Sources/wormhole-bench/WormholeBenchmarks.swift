import Foundation
import Glibc
import Inotify
import KeyedArchive
import Wormhole

/// Issue "Wormhole for Linux" targets: pass throughput against a raw write + rename, encoding
/// against Foundation's NSKeyedArchiver, and cross-process pass-to-listener latency against a raw
/// inotify wake-up.
func passBenchmarks() throws -> [BenchmarkRecord] {
  let message = ArchivedValue.dictionary([
    ArchivedEntry(key: .string("buttonNumber"), value: .integer(1)),
    ArchivedEntry(key: .string("title"), value: .string("hello")),
    ArchivedEntry(key: .string("values"), value: .array([.real(1.5), .boolean(true), .string("x")])),
  ])
  let bytes = try KeyedArchiveEncoder().encodeBytes(message)
  var records: [BenchmarkRecord] = []
  for type in [TransitingType.file, .coordinatedFile] {
    let directory = try scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var options = Wormhole.Options()
    options.journalLimit = 64 << 20
    let wormhole = try Wormhole(directory: directory, transitingType: type, options: options)
    let passes = 2000
    var counter = 0
    let times = try alternate(rounds: 7) {
      for _ in 0..<passes {
        counter += 1
        try wormhole.passMessage(message, identifier: "bench\(counter % 16)")
      }
    } baseline: {
      for index in 0..<passes { try rawWriteAndRename(bytes, directory: directory, name: "raw\(index % 16)") }
    }
    // Where the time goes: the archive's bytes only (no encoding), and the journal only.
    let data = Data(bytes)
    let parts = try alternate(rounds: 5) {
      for index in 0..<passes { try wormhole.passArchive(data, identifier: "bytes\(index % 16)") }
    } baseline: {
      for index in 0..<passes { try wormhole.passMessage(nil, identifier: "notify\(index % 16)") }
    }
    records.append(
      BenchmarkRecord(
        name: "pass_throughput_\(type.rawValue)", unit: "passes/s", value: Double(passes) / times.ours,
        baselineName: "raw write+rename of the same archive bytes", baseline: Double(passes) / times.baseline,
        higherIsBetter: true, target: 0.5,
        detail: [
          "archive_bytes": Double(bytes.count), "pre_encoded_passes_per_s": Double(passes) / parts.ours,
          "notifications_per_s": Double(passes) / parts.baseline,
        ]))
  }
  return records
}

func encodingBenchmarks() throws -> [BenchmarkRecord] {
  func row(_ index: Int) -> ArchivedValue {
    .dictionary([
      ArchivedEntry(key: .string("id"), value: .integer(Int64(index))),
      ArchivedEntry(key: .string("name"), value: .string("row \(index)")),
      ArchivedEntry(key: .string("score"), value: .real(Double(index) / 3)),
    ])
  }
  func foundationRow(_ index: Int) -> NSDictionary {
    ["id": index, "name": "row \(index)", "score": Double(index) / 3]
  }
  let small = row(1)
  let smallObject = foundationRow(1)
  let large = ArchivedValue.array((0..<1000).map(row))
  let largeObject = NSArray(array: (0..<1000).map(foundationRow))
  var records: [BenchmarkRecord] = []
  for (name, value, object, repeats, rounds, target) in [
    ("encode_small_dictionary", small, smallObject as NSObject, 2000, 9, 1.0),
    ("encode_1000_dictionaries", large, largeObject as NSObject, 1, 3, 100.0),
  ] {
    var sink = 0
    let times = try alternate(rounds: rounds) {
      for _ in 0..<repeats { sink &+= try KeyedArchiveEncoder().encodeBytes(value).count }
    } baseline: {
      for _ in 0..<repeats {
        sink &+= try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false).count
      }
    }
    precondition(sink > 0)
    records.append(
      BenchmarkRecord(
        name: name, unit: "seconds", value: times.ours / Double(repeats),
        baselineName: "Foundation NSKeyedArchiver",
        baseline: times.baseline / Double(repeats), higherIsBetter: false, target: target))
  }
  return records
}

/// Latency from a pass in this process to the listener in a child process, at a steady rate,
/// against a raw inotify reader woken by a plain file write + rename.
func latencyBenchmarks() throws -> [BenchmarkRecord] {
  let count = 3000
  let rate = 1000.0
  var ours: [Double] = []
  var raw: [Double] = []
  // Alternate the two in three blocks so machine noise hits both alike.
  for _ in 0..<3 {
    ours += try measureLatency(mode: "wormhole", count: count / 3, rate: rate)
    raw += try measureLatency(mode: "raw", count: count / 3, rate: rate)
  }
  return latencyPercentiles.map { label, fraction, target in
    latencyRecord(
      "pass_to_listener_latency_\(label)", fraction: fraction, ours: ours,
      baselineName: "raw inotify wake-up and read in another process", baseline: raw, target: target,
      detail: ["rate_per_second": rate, "samples": Double(ours.count), "baseline_samples": Double(raw.count)])
  }
}

/// Runs a child `wormhole-bench child-listener MODE DIR`, passes `count` messages at `rate` per
/// second, each carrying its monotonic send time, and returns the child's measured latencies.
private func measureLatency(mode: String, count: Int, rate: Double) throws -> [Double] {
  let directory = try scratchDirectory()
  defer { try? FileManager.default.removeItem(atPath: directory) }
  let child = Process()
  child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  child.arguments = ["child-listener", mode, directory]
  let output = Pipe()
  child.standardOutput = output
  try child.run()
  let reader = output.fileHandleForReading
  guard readLine(from: reader) == "ready" else { throw BenchmarkFailure("the listener did not start") }
  var options = Wormhole.Options()
  options.journalLimit = 64 << 20
  let wormhole = try Wormhole(directory: directory, options: options)
  let interval = 1.0 / rate
  let start = now()
  for index in 0..<count {
    let due = start + Double(index) * interval
    sleepUntil(due)
    let sent = now()
    if mode == "wormhole" {
      try wormhole.passMessage(.real(sent), identifier: "latency")
    } else {
      try rawWriteAndRename(Array(String(sent).utf8), directory: directory, name: "latency")
    }
  }
  // Tell the child to stop: a file it watches for in both modes.
  sleepUntil(now() + 0.05)
  try rawWriteAndRename(Array("stop".utf8), directory: directory, name: "stop")
  if mode == "wormhole" { try wormhole.passMessage(nil, identifier: "stop") }
  let report = reader.readDataToEndOfFile()
  child.waitUntilExit()
  return String(decoding: report, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
}

/// `child-listener MODE DIR`, the child side of ``measureLatency(mode:count:rate:)``: prints
/// `ready`, then one latency in seconds per message heard once told to stop.
func runChildListener(_ arguments: [String]) throws -> Never {
  guard arguments.count == 2 else { throw BenchmarkFailure("child-listener takes MODE DIR") }
  let (mode, directory) = (arguments[0], arguments[1])
  var latencies: [Double] = []
  latencies.reserveCapacity(10_000)
  if mode == "wormhole" {
    let wormhole = try Wormhole(directory: directory)
    let done = DispatchSemaphore(value: 0)
    let box = LatencyBox()
    let token = try wormhole.listenForMessage(withIdentifier: "latency") { received in
      if case .real(let sent)? = received.message { box.add(now() - sent) }
    }
    let stop = try wormhole.listenForMessage(withIdentifier: "stop") { _ in done.signal() }
    print("ready")
    fflushStandardOutput()
    done.wait()
    token.cancel()
    stop.cancel()
    latencies = box.values
  } else {
    let inotify = try Inotify()
    try inotify.addWatch(directory, mask: [.movedTo, .closeWrite])
    print("ready")
    fflushStandardOutput()
    var poll = pollfd(fd: inotify.fileDescriptor, events: Int16(POLLIN), revents: 0)
    loop: while true {
      _ = Glibc.poll(&poll, 1, -1)
      for event in try inotify.readEvents() {
        if event.name == "stop" { break loop }
        guard event.name == "latency" else { continue }
        if let text = try? String(contentsOfFile: directory + "/latency", encoding: .utf8),
          let sent = Double(text)
        {
          latencies.append(now() - sent)
        }
      }
    }
  }
  print(latencies.map { String($0) }.joined(separator: "\n"))
  fflushStandardOutput()
  exit(0)
}

final class LatencyBox: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: [Double] = []
  func add(_ value: Double) { lock.withLock { stored.append(value) } }
  var values: [Double] { lock.withLock { stored } }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

private func readLine(from handle: FileHandle) -> String? {
  var bytes: [UInt8] = []
  while true {
    let byte = handle.readData(ofLength: 1)
    guard let first = byte.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
    if first == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
    bytes.append(first)
  }
}

private func sleepUntil(_ deadline: Double) {
  let remaining = deadline - now()
  guard remaining > 0 else { return }
  var request = timespec(tv_sec: Int(remaining), tv_nsec: Int((remaining - Double(Int(remaining))) * 1e9))
  var left = timespec()
  while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
}

func fflushStandardOutput() { fflush(nil) }

/// The baseline writer: the same temporary file + rename a careful program does by hand.
func rawWriteAndRename(_ bytes: [UInt8], directory: String, name: String) throws {
  let temporary = directory + "/." + name + ".tmp"
  let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  guard descriptor >= 0 else { throw BenchmarkFailure("open \(temporary): \(errno)") }
  let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
  close(descriptor)
  guard written == bytes.count, rename(temporary, directory + "/" + name) == 0 else {
    throw BenchmarkFailure("write \(temporary): \(errno)")
  }
}

func scratchDirectory() throws -> String {
  let path = NSTemporaryDirectory() + "/wormhole-bench-\(getpid())-\(UUID().uuidString)"
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}
