import Foundation
import Glibc
import TestSupport

/// The built `wormhole-tui` in a child process (a bridge, say) with an environment of the test's
/// choosing: the test process's, without any `WORMHOLE_MQTT_` variable, plus `environment`. Its
/// standard output and error are collected as they come; ``run(_:environment:seconds:)`` runs
/// one to its end.
final class WormholeChild: Sendable {
  let process: Process
  let output = Collector<UInt8>()
  let errors = Collector<UInt8>()

  init(_ arguments: [String], environment: [String: String] = [:]) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: wormholePath)
    process.arguments = arguments
    process.environment = Self.environment(adding: environment)
    process.standardInput = FileHandle.nullDevice
    for (pipe, collector) in [(Pipe(), output), (Pipe(), errors)] {
      if collector === output { process.standardOutput = pipe } else { process.standardError = pipe }
      pipe.fileHandleForReading.readabilityHandler = { handle in
        let chunk = handle.availableData
        if chunk.isEmpty {
          handle.readabilityHandler = nil
        } else {
          for byte in chunk { collector.append(byte) }
        }
      }
    }
    try process.run()
  }

  /// What the child wrote to standard error so far.
  var errorText: String { String(decoding: errors.values, as: UTF8.self) }
  var outputText: String { String(decoding: output.values, as: UTF8.self) }

  /// Waits (at most `seconds`) until standard error holds `text`; whether it does.
  func waitForError(containing text: String, seconds: Double = 10) -> Bool {
    errors.wait(seconds: seconds) { String(decoding: $0, as: UTF8.self).contains(text) }
    return errorText.contains(text)
  }

  /// Sends `signal` (SIGKILL: a child of the test runner starts with SIGTERM blocked) and waits.
  func stop(_ signal: Int32 = SIGKILL) {
    if process.isRunning { _ = kill(process.processIdentifier, signal) }
    process.waitUntilExit()
  }

  /// Runs `wormhole-tui` to its end (at most `seconds`): status (`-1` if it did not end), output,
  /// errors. Its streams go to files, read once it has exited: a pipe's end would come only
  /// once every process that inherited it (another test's child, started at the same moment) had closed it.
  static func run(_ arguments: [String], environment: [String: String] = [:], seconds: Double = 30) throws
    -> (status: Int32, output: String, errors: String)
  {
    let directory = TemporaryDirectory(prefix: "wormhole-run")
    defer { directory.remove() }
    directory.write("output", "")
    directory.write("errors", "")
    guard let output = FileHandle(forWritingAtPath: directory.path("output")),
      let errors = FileHandle(forWritingAtPath: directory.path("errors"))
    else { throw BrokerTestError("cannot open the output files in \(directory.path)") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: wormholePath)
    process.arguments = arguments
    process.environment = Self.environment(adding: environment)
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = errors
    let ended = Collector<Int32>()
    process.terminationHandler = { ended.append($0.terminationStatus) }
    try process.run()
    try? output.close()
    try? errors.close()
    let status = ended.wait(seconds: seconds) { !$0.isEmpty }.first
    if status == nil {
      _ = kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    return (status ?? -1, directory.contents("output") ?? "", directory.contents("errors") ?? "")
  }

  /// The test process's environment without any `WORMHOLE_MQTT_` variable, plus `environment`.
  static func environment(adding environment: [String: String]) -> [String: String] {
    var inherited = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WORMHOLE_MQTT_") }
    inherited.merge(environment) { _, new in new }
    return inherited
  }
}
