import Dashboard
import Glibc
import PatternMatching

// wormhole-bench filter: one `/` filter pass over 100,000 mailbox names, as the dashboard runs it
// on the loop (PaneFilter: PCRE2 under its limits and pass budget). Ordinary patterns against
// Swift's Regex (what the filter used before) in the same run, in CPU seconds so that a loaded
// machine does not decide; the worst cases against a frame at 30 Hz, which a pass must stay under
// (target: at most two thirds of a frame, leaving the rest to the render).

private let frameSeconds = 1.0 / 30

/// CPU seconds this process has run.
private func cpuNow() -> Double {
  var spec = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
  return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// The median CPU and wall seconds of `rounds` runs of `body`.
private func measure(rounds: Int, _ body: () -> Void) -> (cpu: Double, wall: Double) {
  var cpu: [Double] = []
  var wall: [Double] = []
  for _ in 0..<rounds {
    let (startCPU, startWall) = (cpuNow(), now())
    body()
    cpu.append(cpuNow() - startCPU)
    wall.append(now() - startWall)
  }
  return (median(cpu), median(wall))
}

func filterBenchmarks() throws -> [BenchmarkRecord] {
  let names = (0..<100_000).map { "com.example.group-\($0 % 97).mailbox-\($0)" }
  var records: [BenchmarkRecord] = []
  // No time limit here, so that the pass tries every name however loaded the machine is.
  let unlimited = MatchBudget(timeLimit: .seconds(3600))
  for source in ["mailbox-9", "^com\\.example\\.group-1[0-9]\\.", "-42$|-4242"] {
    let regex = try Regex(source)
    var sink = 0
    var undecided = 0
    let ours = measure(rounds: 7) {
      var filter = PaneFilter(source, budget: unlimited)
      filter.beginPass()
      sink &+= names.count { filter.admits($0) }
      undecided = max(undecided, filter.undecidedCount)
    }
    let baseline = measure(rounds: 7) { sink &+= names.count { (try? regex.firstMatch(in: $0)) != nil } }
    records.append(
      BenchmarkRecord(
        name: "filter.ordinary \(source) over 100000 names", unit: "cpu s", value: ours.cpu,
        baselineName: "Swift Regex, same names", baseline: baseline.cpu, higherIsBetter: false, target: 1,
        detail: ["undecided": Double(undecided), "wall_s": ours.wall, "sink": Double(sink % 2)]))
  }
  // Every name as costly as can be: (a+)+$ on a x 240 + ! backtracks for minutes with Swift Regex.
  let catastrophic = (0..<100_000).map { String(repeating: "a", count: 240) + "!" + String($0) + "!" }
  // Every name just under the limits: thousands of steps each; the time limit stops the pass.
  let nearLimit = (0..<100_000).map { String(repeating: "a", count: 10) + "!" + String($0 % 10) }
  for (label, candidates) in [
    ("every name cut off", catastrophic), ("every name under the limit", nearLimit),
  ] {
    var undecided = 0
    let ours = measure(rounds: 7) {
      var filter = PaneFilter("(a+)+$")
      filter.beginPass()
      for candidate in candidates { _ = filter.admits(candidate) }
      undecided = filter.undecidedCount
    }
    records.append(
      BenchmarkRecord(
        name: "filter.worst (a+)+$ over 100000 names, \(label)", unit: "cpu s", value: ours.cpu,
        baselineName: "one frame at 30 Hz", baseline: frameSeconds, higherIsBetter: false, target: 1.5,
        detail: ["undecided": Double(undecided), "wall_s": ours.wall]))
  }
  return records
}
