import Foundation
import Wormhole

/// One benchmark figure, measured against a baseline taken in the same run.
///
/// `ratio` is always "how many baselines one of ours is worth" in the direction where bigger is
/// better: for rates, value / baseline; for durations, baseline / value. A target is met when the
/// ratio is at least `target`.
struct BenchmarkRecord {
  var name: String
  var unit: String
  var value: Double
  var baselineName: String
  var baseline: Double
  var higherIsBetter: Bool
  var target: Double?
  var detail: [String: Double] = [:]

  var ratio: Double {
    guard baseline > 0 else { return 0 }
    // Nothing measured where less is better (no CPU used while idle) beats any baseline.
    guard value > 0 else { return higherIsBetter ? 0 : .infinity }
    return higherIsBetter ? value / baseline : baseline / value
  }

  /// One JSON object on one line, keys in a stable order.
  var jsonLine: String {
    var parts = [
      "\"name\":\(quoted(name))", "\"unit\":\(quoted(unit))", "\"value\":\(number(value))",
      "\"baseline_name\":\(quoted(baselineName))", "\"baseline\":\(number(baseline))",
      "\"ratio\":\(number(ratio))",
    ]
    if let target {
      parts.append("\"target\":\(number(target))")
      parts.append("\"met\":\(ratio >= target)")
    }
    for key in detail.keys.sorted() { parts.append("\(quoted(key)):\(number(detail[key] ?? 0))") }
    return "{" + parts.joined(separator: ",") + "}"
  }
}

/// One run of a figure taken several times: ours and the baseline, both measured in the run, and
/// what else the run reports.
struct FigureRun {
  var ours: Double
  var baseline: Double
  /// Written to the record's detail under `run<N>_`.
  var detail: [String: Double] = [:]
}

extension BenchmarkRecord {
  /// The record of a figure taken in `runs`: `value` and `baseline` the medians of ours and of
  /// the baseline over the runs; in the detail, beside `detail`, each run's ratio (in the
  /// direction ``ratio`` takes, 0 where it would divide by 0) and the run's own detail, under
  /// `run<N>_`.
  init(
    _ name: String, unit: String, baselineName: String, higherIsBetter: Bool, target: Double?,
    runs: [FigureRun], detail: [String: Double] = [:]
  ) {
    var detail = detail
    for (index, run) in runs.enumerated() {
      let (dividend, divisor) = higherIsBetter ? (run.ours, run.baseline) : (run.baseline, run.ours)
      detail["run\(index)_ratio"] = divisor > 0 ? dividend / divisor : 0
      for (key, value) in run.detail { detail["run\(index)_\(key)"] = value }
    }
    self.init(
      name: name, unit: unit, value: median(runs.map(\.ours)), baselineName: baselineName,
      baseline: median(runs.map(\.baseline)), higherIsBetter: higherIsBetter, target: target, detail: detail)
  }
}

private func quoted(_ text: String) -> String { JSONText.string(text) }

private func number(_ value: Double) -> String {
  value.isFinite ? String(format: "%.6g", value) : "null"
}

/// The latency percentiles every latency benchmark reports: `p50`, held to a third of the
/// baseline's, and `p99`.
let latencyPercentiles: [(label: String, fraction: Double, target: Double?)] = [
  ("p50", 0.5, 1.0 / 3.0), ("p99", 0.99, nil),
]

/// A latency percentile (`fraction`) of our samples against the same percentile of a baseline's
/// samples: lower is better.
func latencyRecord(
  _ name: String, fraction: Double, ours: [Double], baselineName: String, baseline: [Double], target: Double?,
  detail: [String: Double]
) -> BenchmarkRecord {
  BenchmarkRecord(
    name: name, unit: "seconds", value: percentile(ours, fraction), baselineName: baselineName,
    baseline: percentile(baseline, fraction), higherIsBetter: false, target: target, detail: detail)
}

/// Monotonic seconds.
func now() -> Double {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// The median of `samples` (which must not be empty).
func median(_ samples: [Double]) -> Double { percentile(samples, 0.5) }

/// The `fraction` percentile of `samples`, nearest rank.
func percentile(_ samples: [Double], _ fraction: Double) -> Double {
  guard !samples.isEmpty else { return 0 }
  let sorted = samples.sorted()
  let rank = Int((fraction * Double(sorted.count - 1)).rounded())
  return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// Runs `body` `rounds` times, alternating with `baseline` so that machine noise hits both alike,
/// and returns the median seconds of each.
func alternate(rounds: Int, _ body: () throws -> Void, baseline: () throws -> Void) rethrows -> (
  ours: Double, baseline: Double
) {
  var ours: [Double] = []
  var theirs: [Double] = []
  for _ in 0..<rounds {
    var start = now()
    try body()
    ours.append(now() - start)
    start = now()
    try baseline()
    theirs.append(now() - start)
  }
  return (median(ours), median(theirs))
}

/// The file system type of the longest mount point in /proc/self/mounts that holds `path`;
/// `unknown` when the mounts cannot be read.
func fileSystemType(_ path: String) -> String {
  guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else {
    return "unknown"
  }
  let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
  var best = (length: -1, type: "unknown")
  for line in mounts.split(separator: "\n") {
    let fields = line.split(separator: " ")
    guard fields.count > 2 else { continue }
    let point = String(fields[1])
    let holds = point == "/" || resolved == point || resolved.hasPrefix(point + "/")
    if holds && point.count > best.length { best = (point.count, String(fields[2])) }
  }
  return best.type
}

/// Resident set size of this process in bytes, from /proc/self/statm.
func residentBytes() -> Double {
  guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
  let fields = text.split(separator: " ")
  guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
  return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
}

/// The number a fresh `wormhole-bench GROUP` process prints when started with `environment`
/// added to ours: how the memory figures are measured, each in a process of its own, so that
/// earlier rounds' fragmentation does not count.
func numberPrinted(byChildRunning group: String, environment added: [String: String]) throws -> Double {
  let child = Process()
  child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  child.arguments = [group]
  var environment = ProcessInfo.processInfo.environment
  environment.merge(added) { $1 }
  child.environment = environment
  let output = Pipe()
  child.standardOutput = output
  try child.run()
  let data = output.fileHandleForReading.readDataToEndOfFile()
  child.waitUntilExit()
  let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  guard let value = Double(text) else { throw BenchmarkFailure("the \(group) child printed \(text)") }
  return value
}

/// Writes `text` and a line break to standard error with write(2), which reports nothing and
/// never traps (FileHandle's write does on a closed or full stream).
func diagnose(_ text: String) {
  let bytes = Array((text + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
