import Foundation

// wormhole-bench: prints one JSON line per figure, each with a baseline measured in the same run.
// Build and run in release mode: swift run -c release wormhole-bench [GROUP...]
// Groups: pass, encoding, latency, inspector, model, flood, dashboard, hostile, filter, pairs, peers, broker,
// fleet (all by default; model takes about six minutes; broker and fleet need mosquitto and libmosquitto1).
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "child-listener", arguments.count == 3 {
  do {
    try runChildListener(mode: arguments[1], directory: arguments[2])
  } catch {
    diagnose("wormhole-bench child: \(error)")
    exit(1)
  }
}
if arguments.first == "child-pair" {
  do {
    try runPairChild(Array(arguments.dropFirst()))
  } catch {
    diagnose("wormhole-bench child-pair: \(error)")
    exit(1)
  }
}
if arguments.first == "child-broker-pairs" {
  do {
    try runBrokerPairsChild(Array(arguments.dropFirst()))
    exit(0)
  } catch {
    diagnose("wormhole-bench child-broker-pairs: \(error)")
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
