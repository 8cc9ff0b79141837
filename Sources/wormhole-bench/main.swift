import Foundation

// wormhole-bench: prints one JSON line per figure, each with a baseline measured in the same run.
// Build and run in release mode: swift run -c release wormhole-bench [GROUP...]
// Groups: pass, encoding, latency, inspector, model, flood, dashboard, hostile, filter, pairs, peers, broker,
// fleet (all by default; model takes about six minutes; broker and fleet need mosquitto and libmosquitto1).
let arguments = Array(CommandLine.arguments.dropFirst())

/// The processes the figures start as children of their own, by subcommand: each runs until it
/// exits (0 once its work is done, 1 with the reason when it fails).
let children: [(String, ([String]) throws -> Void)] = [
  ("child-listener", { try runChildListener($0) }), ("child-pair", { try runPairChild($0) }),
  ("child-broker-pairs", runBrokerPairsChild),
]
if let name = arguments.first, let child = children.first(where: { $0.0 == name }) {
  do {
    try child.1(Array(arguments.dropFirst()))
    exit(0)
  } catch {
    diagnose("wormhole-bench \(name): \(error)")
    exit(1)
  }
}
let groups: [(String, () throws -> [BenchmarkRecord])] = [
  ("pass", passBenchmarks), ("encoding", encodingBenchmarks), ("latency", latencyBenchmarks),
  ("inspector", inspectorBenchmarks), ("model", modelBenchmarks), ("flood", floodLatencyBenchmarks),
  ("dashboard", dashboardBenchmarks), ("hostile", hostileInputBenchmarks), ("filter", filterBenchmarks),
  ("pairs", pairBenchmarks), ("peers", peerBenchmarks), ("broker", brokerBenchmarks),
  ("fleet", fleetBenchmarks),
]
let known = Set(groups.map(\.0))
for name in arguments where !known.contains(name) {
  diagnose("wormhole-bench: unknown group \(name); groups: \(groups.map(\.0))")
  exit(2)
}
for (name, run) in groups where arguments.isEmpty || arguments.contains(name) {
  do {
    for record in try run() {
      print(record.jsonLine)
      fflush(nil)
    }
  } catch {
    diagnose("wormhole-bench: \(name): \(error)")
    exit(1)
  }
}
