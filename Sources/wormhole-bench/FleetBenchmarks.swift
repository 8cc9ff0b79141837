import Dispatch
import Foundation
import Glibc
import MQTTClient

/// Issue 15's keystroke figures with a dashboard watching, each the real `wormhole-tui` in a
/// 200x60 pseudo-terminal (TERM=xterm-256color) through a mosquitto of the benchmark's own, and
/// each against the same dashboard process with nothing going on, in the same run:
///
/// - `broker_100_pairs_dashboard_keystroke_p50`: 100 pairs through one broker, hosted by 4
///   `child-broker-pairs` children (25 pairs, 50 devices each) in one home, each phone sending a
///   1 KiB session message that its watch answers, ``pairRoundTripsPerSecond`` a second; the
///   dashboard runs on that home (`wormhole-tui --home HOME`), so its pairs branch shows the 100
///   pairs, and its traffic pane the session journal of their 200 devices. The baseline is the
///   same dashboard before the traffic starts: the same pairs running and reachable, no message.
///   A control follows while the traffic goes on: a second dashboard on an empty home (the first
///   one ended), whose keys tell what the traffic costs the machine (200 devices and a broker on
///   the same cores) from what it costs the dashboard that watches it (`control_p50_s`).
/// - `fleet_dashboard_keystroke_p50`: `wormhole-tui --home HOME --broker URL` (HOME: 10 local
///   mailboxes) while 100 machines of 50 mailboxes (``SimulatedFleet``: retained presence,
///   bridge info and mailboxes published raw, as bridges publish them) stream one mailbox change
///   per machine per second, each with its traffic entry. The baseline is the same dashboard
///   before the fleet is published: the broker holds no machine. The broker queues up to
///   10,000 messages per client (``fleetBrokerConfiguration``): with mosquitto's default a
///   dashboard is not sent the whole fleet.
///
/// Keys are typed into the `:` line and each is timed until its marker is drawn on the
/// pseudo-terminal (``commandLineKeyLatencies(in:)``). Each figure is the median of three runs'
/// p50s (each run a fresh broker, home and dashboard); the target is at most twice the idle p50
/// (ratio idle / busy at least 0.5, as every latency figure here states it). The dashboard's
/// resident memory (VmRSS) is in the detail, idle and busy. `WORMHOLE_BENCH_FLEET=pairs` (or
/// `fleet`) takes only that figure.
func fleetBenchmarks() throws -> [BenchmarkRecord] {
  let figures = try FleetFigure.selected()
  try MQTTClient.load()
  return try figures.map { figure in
    switch figure {
    case .pairs: try pairsDashboardFigure()
    case .fleet: try fleetDashboardFigure()
    }
  }
}

/// The figures of the fleet group.
private enum FleetFigure: String, BenchFigure {
  case pairs, fleet
  static let environmentSwitch = "WORMHOLE_BENCH_FLEET"
}

private let runs = 3
private let pairCount = 100
private let pairProcesses = 4
/// Session messages (each answered) a second per pair: the demo's phone sends one every half second.
private let pairRoundTripsPerSecond = 2.0
private let fleetMachines = 100
private let fleetMailboxes = 50
/// One mailbox change per machine per second.
private let fleetChangesPerSecond = Double(fleetMachines)

/// One run's keys, idle and busy, and what it measured besides.
private struct KeystrokeRun {
  var idle: [Double]
  var busy: [Double]
  var detail: [String: Double]
}

/// The record of `runs` runs of `run`: their medians, each run's ratio and percentiles in the
/// detail, and `load` (what the figure held the dashboard under) beside them.
private func keystrokeFigure(
  _ name: String, baselineName: String, load: [String: Double], run: () throws -> KeystrokeRun
) throws -> BenchmarkRecord {
  let results = try (0..<runs).map { _ in try run() }
  let taken = results.map { result in
    let idle = median(result.idle)
    let busy = median(result.busy)
    let percentiles = [
      "p50_s": busy, "idle_p50_s": idle, "p99_s": percentile(result.busy, 0.99),
      "idle_p99_s": percentile(result.idle, 0.99),
    ]
    return FigureRun(ours: busy, baseline: idle, detail: percentiles.merging(result.detail) { $1 })
  }
  var detail = load
  detail["keys_per_phase"] = Double(results.first?.busy.count ?? 0)
  return BenchmarkRecord(
    name, unit: "seconds", baselineName: baselineName, higherIsBetter: false, target: 0.5, runs: taken,
    detail: detail)
}

// MARK: 100 pairs through a broker

private func pairsDashboardFigure() throws -> BenchmarkRecord {
  try keystrokeFigure(
    "broker_100_pairs_dashboard_keystroke_p50",
    baselineName: "the same dashboard on the same 100 running pairs before any message",
    load: [
      "pairs": Double(pairCount), "processes": Double(pairProcesses),
      "round_trips_per_s_per_pair": pairRoundTripsPerSecond,
    ],
    run: pairsDashboardRun)
}

private func pairsDashboardRun() throws -> KeystrokeRun {
  let broker = try BenchBroker()
  defer { broker.stop() }
  let home = try scratchDirectory()
  defer { try? FileManager.default.removeItem(atPath: home) }
  let perProcess = pairCount / pairProcesses
  let children = try (0..<pairProcesses).map { index in
    try PairChild(
      [
        broker.address.host, String(broker.address.port), home, String(index * perProcess),
        String(perProcess),
        BrokerPairsTraffic.paced(perSecond: pairRoundTripsPerSecond).argument,
      ], command: "child-broker-pairs")
  }
  defer { for child in children { child.finish(killing: true) } }
  for child in children { try child.expect("ready") }
  var detail: [String: Double] = [:]
  var started = 0.0
  let (idle, busy) = try withDashboard(on: home, firstFrameBytes: 2_000) { pty, pid in
    detail["dashboard_start_quiet_s"] = waitUntilQuiet(pid)
    let idle = commandLineKeyLatencies(in: pty)
    detail["idle_dashboard_rss_bytes"] = residentBytes(ofProcess: pid)
    for child in children { child.send("go") }
    started = now()
    let busy = busyKeyLatencies(in: pty, dashboard: pid, detail: &detail)
    // The model keeps the newest 10,000 traffic entries: about 600 a second come in (three per
    // round trip), so after 20 s the ring is full and the memory is what it stays at.
    _ = settle(seconds: max(0, 20 - (now() - started))) { false }
    detail["dashboard_rss_full_traffic_bytes"] = residentBytes(ofProcess: pid)
    return (idle, busy)
  }
  // The control: the same traffic, the machine as loaded, and a dashboard with nothing of it to
  // show (an empty home), so what the traffic costs the machine is told from what it costs the
  // dashboard watching it.
  let (emptyHome, _) = try benchmarkHome(mailboxes: 0)
  defer { try? FileManager.default.removeItem(atPath: emptyHome) }
  let control = try withDashboard(on: emptyHome, firstFrameBytes: 500) { pty, pid in
    _ = waitUntilQuiet(pid)
    return commandLineKeyLatencies(in: pty)
  }
  detail["control_p50_s"] = median(control)
  detail["control_p99_s"] = percentile(control, 0.99)
  for child in children { child.send("stop") }
  let stopped = now()
  var samples: [Double] = []
  var resident: [Double] = []
  for child in children {
    let words = try child.line().split(separator: " ")
    guard words.first == "samples" else { throw BenchmarkFailure("a pairs child said \(words.first ?? "")") }
    samples += words.dropFirst().compactMap { Double($0) }
    let memory = try child.line().split(separator: " ")
    guard memory.first == "rss", memory.count == 2, let bytes = Double(memory[1]) else {
      throw BenchmarkFailure("a pairs child did not state its memory")
    }
    resident.append(bytes)
  }
  guard !samples.isEmpty else { throw BenchmarkFailure("the pairs exchanged no message") }
  detail["round_trips_per_s"] = Double(samples.count) / (stopped - started)
  detail["round_trip_p50_s"] = median(samples)
  detail["hosting_rss_per_process_bytes"] = median(resident)
  return KeystrokeRun(idle: idle, busy: busy, detail: detail)
}

// MARK: The fleet dashboard over 100 machines

private func fleetDashboardFigure() throws -> BenchmarkRecord {
  try keystrokeFigure(
    "fleet_dashboard_keystroke_p50",
    baselineName: "the same dashboard (--broker) before any machine is published",
    load: [
      "machines": Double(fleetMachines), "mailboxes_per_machine": Double(fleetMailboxes),
      "changes_per_s": fleetChangesPerSecond,
    ],
    run: fleetDashboardRun)
}

/// mosquitto's default (1000) queues at most 1000 QoS 1 messages per client beyond the 20 in
/// flight and drops the rest without a word: a dashboard subscribing to a fleet of 5,200
/// retained messages gets 1,020 of them (20 of the 100 machines), and one subscribed while they
/// are published loses some too. A broker for a fleet needs more than its retained messages.
private let fleetBrokerConfiguration = "max_queued_messages 10000\n"

private func fleetDashboardRun() throws -> KeystrokeRun {
  let broker = try BenchBroker(extraConfiguration: fleetBrokerConfiguration)
  defer { broker.stop() }
  let (home, _) = try benchmarkHome(mailboxes: 10)
  defer { try? FileManager.default.removeItem(atPath: home) }
  return try withDashboard(
    on: home, arguments: ["--broker", broker.address.description], firstFrameBytes: 2_000
  ) { pty, pid in
    var detail: [String: Double] = [:]
    detail["dashboard_start_quiet_s"] = waitUntilQuiet(pid)
    let idle = commandLineKeyLatencies(in: pty)
    detail["idle_dashboard_rss_bytes"] = residentBytes(ofProcess: pid)
    let fleet = try SimulatedFleet(broker: broker.address, machines: fleetMachines, mailboxes: fleetMailboxes)
    defer { fleet.disconnect() }
    let published = now()
    try fleet.publishRetained()
    detail["retained_published_s"] = now() - published
    // The dashboard has filed the retained state once it is quiet again.
    _ = waitUntilQuiet(pid)
    detail["fleet_filed_s"] = now() - published
    detail["fleet_rss_bytes"] = residentBytes(ofProcess: pid)
    fleet.startStreaming(changesPerSecond: fleetChangesPerSecond)
    let started = now()
    let busy = busyKeyLatencies(in: pty, dashboard: pid, detail: &detail)
    let changes = fleet.stopStreaming()
    detail["changes_per_s_published"] = Double(changes) / (now() - started)
    return KeystrokeRun(idle: idle, busy: busy, detail: detail)
  }
}

// MARK: Keys, quiet, memory

/// The busy phase's keys, typed once the load has run a second: their latencies, with the
/// dashboard's CPU share while they were typed and its memory after them in `detail`.
private func busyKeyLatencies(in pty: PseudoTerminal, dashboard pid: pid_t, detail: inout [String: Double])
  -> [Double]
{
  _ = settle(seconds: 1) { false }
  let cpuBefore = cpuSeconds(pid)
  let busyStart = now()
  let busy = commandLineKeyLatencies(in: pty)
  detail["dashboard_cpu_share_busy"] = (cpuSeconds(pid) - cpuBefore) / (now() - busyStart)
  detail["dashboard_rss_bytes"] = residentBytes(ofProcess: pid)
  return busy
}

/// Types 120 keys into the dashboard's `:` line (opened afresh every 60, as the flood figure
/// does) and returns how long each took until the screen showed it. Each key is the marker and
/// its round's number, so that no two frames draw the same field (ncurses would draw a run of
/// markers as a repeat count). A key not shown within 5 s counts as 5 s, so a hang is a figure;
/// after three in a row the rest count so too, without waiting for them.
func commandLineKeyLatencies(in pty: PseudoTerminal, keys: Int = 120) -> [Double] {
  var latencies: [Double] = []
  var rounds = MarkerRounds()
  for round in 0..<keys {
    if round % 60 == 0 {
      if round > 0 { pty.type("\u{1B}") }
      _ = settle(seconds: 0.2) { false }
      pty.type(":")
      _ = settle(seconds: 0.3) { false }
    }
    latencies.append(rounds.latency(ofRound: round, in: pty))
  }
  pty.type("\u{1B}")
  return latencies
}

/// Waits until process `pid` has used under 10 ms of CPU in a half second (at most 60 s) and
/// returns how long that took: a dashboard that has filed what it was given.
func waitUntilQuiet(_ pid: pid_t) -> Double {
  let start = now()
  var last = cpuSeconds(pid)
  while now() - start < 60 {
    usleep(500_000)
    let used = cpuSeconds(pid)
    if used - last < 0.010 { break }
    last = used
  }
  return now() - start
}

/// The resident memory (VmRSS) of process `pid` in bytes, from /proc; 0 when it cannot be read.
func residentBytes(ofProcess pid: pid_t) -> Double {
  guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
  for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
    let fields = line.split(separator: " ", omittingEmptySubsequences: true)
    if fields.count >= 2, let kilobytes = Double(fields[1]) { return kilobytes * 1024 }
  }
  return 0
}
