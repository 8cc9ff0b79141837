import Foundation
import Glibc
import TestSupport

/// `wormhole-tui bridge` in its own process, watching one container directory.
final class BridgeProcess: Sendable {
  /// The bridge (a ``ChildProcess``: `processIdentifier`, `isRunning`, `terminationStatus`).
  let process: ChildProcess
  private let errors = Collector<String>()

  init(_ broker: TestBroker, container: String, machine: String, extra: [String] = []) throws {
    let errors = errors
    process = try ChildProcess(
      wormholePath,
      arguments: ["bridge", "--broker", broker.url, "--container", container, "--name", machine] + extra,
      standardError: .pipe { chunk in
        if !chunk.isEmpty { errors.append(String(decoding: chunk, as: UTF8.self)) }
      })
  }

  /// What the bridge wrote to standard error so far, and whether it still runs: for failure messages.
  var diagnostics: String {
    errors.values.joined() + (process.isRunning ? "(running)" : "(exited \(process.terminationStatus))")
  }

  /// Waits (up to ten seconds) until the bridge's standard error holds `text`; whether it does.
  func waitForDiagnostic(containing text: String) -> Bool {
    errors.wait { $0.joined().contains(text) }.joined().contains(text)
  }

  /// Sends `signal` and waits for the process to end.
  func stop(_ signal: Int32 = SIGKILL) { process.stop(signal) }
}

/// Runs the built `wormhole-tui` with `arguments` to its end: its status and standard output.
func runWormhole(_ arguments: [String]) throws -> (status: Int32, output: String) {
  let directory = TemporaryDirectory(prefix: "wormhole-run")
  defer { directory.remove() }
  let process = try ChildProcess(
    wormholePath, arguments: arguments, standardOutput: .file(directory.path("output")))
  process.wait()
  return (process.terminationStatus, directory.contents("output") ?? "")
}

/// A topic level as the bridge writes it: every byte but `A-Z a-z 0-9 - . _ ~` as `%XX`.
func topicLevel(_ text: String) -> String {
  text.utf8.map { byte -> String in
    let unreserved =
      (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
      || [0x2D, 0x2E, 0x5F, 0x7E].contains(byte)
    return unreserved ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
  }.joined()
}
