import Foundation
import Glibc
import TestSupport

/// The built `wormhole-tui` in a child process (a bridge, say) with an environment of the test's
/// choosing: the test process's, without any `WORMHOLE_MQTT_` variable, plus `environment`. Its
/// standard output and error are collected as they come; ``run(_:environment:seconds:)`` runs
/// one to its end.
final class WormholeChild: Sendable {
  /// The child (a ``ChildProcess``: `processIdentifier`, `isRunning`, `terminationStatus`, as
  /// `Process` has them).
  let process: ChildProcess
  let output = Collector<UInt8>()
  let errors = Collector<UInt8>()

  init(_ arguments: [String], environment: [String: String] = [:]) throws {
    let (output, errors) = (output, errors)
    process = try ChildProcess(
      wormholePath, arguments: arguments, environment: Self.environment(adding: environment),
      standardOutput: .pipe { for byte in $0 { output.append(byte) } },
      standardError: .pipe { for byte in $0 { errors.append(byte) } })
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
  func stop(_ signal: Int32 = SIGKILL) { process.stop(signal) }

  /// Runs `wormhole-tui` to its end (at most `seconds`): status (`-1` if it did not end), output,
  /// errors. Its streams go to files, read once it has exited.
  static func run(_ arguments: [String], environment: [String: String] = [:], seconds: Double = 30) throws
    -> (status: Int32, output: String, errors: String)
  {
    let directory = TemporaryDirectory(prefix: "wormhole-run")
    defer { directory.remove() }
    let process = try ChildProcess(
      wormholePath, arguments: arguments, environment: Self.environment(adding: environment),
      standardOutput: .file(directory.path("output")), standardError: .file(directory.path("errors")))
    let ended = process.wait(seconds: seconds) != nil
    if !ended { process.stop(SIGKILL) }
    return (
      ended ? process.terminationStatus : -1, directory.contents("output") ?? "",
      directory.contents("errors") ?? ""
    )
  }

  /// The test process's environment without any `WORMHOLE_MQTT_` variable, plus `environment`.
  static func environment(adding environment: [String: String]) -> [String: String] {
    var inherited = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WORMHOLE_MQTT_") }
    inherited.merge(environment) { _, new in new }
    return inherited
  }
}
