import Foundation

// wormhole-bench: prints one JSON line per figure, each with a baseline measured in the same run.
// Build and run in release mode: swift run -c release wormhole-bench [GROUP...]
let groups: [String: () throws -> [BenchmarkRecord]] = ["inspector": inspectorBenchmarks]
let wanted = CommandLine.arguments.dropFirst()
for name in groups.keys.sorted() where wanted.isEmpty || wanted.contains(name) {
  do {
    for record in try groups[name]?() ?? [] { print(record.jsonLine) }
  } catch {
    FileHandle.standardError.write(Data("wormhole-bench: \(name): \(error)\n".utf8))
    exit(1)
  }
}
