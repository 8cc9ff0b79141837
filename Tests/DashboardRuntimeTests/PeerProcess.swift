import Foundation
import Glibc
import Testing

/// A `wormhole-tui peer run` of the tests' own, started and awaited until its start-up line says
/// it runs (its files and run lock are there then); ``stop()`` kills it if it still runs.
final class PeerProcess {
  private let process = Process()

  /// The peer process's pid.
  var pid: Int32 { process.processIdentifier }

  /// `arguments` follow `peer run`'s own (`--routes FILE`, say).
  init(name: String, service: String = "chat", home: String, arguments: [String] = []) throws {
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.executableURL = me.deletingLastPathComponent().appendingPathComponent("wormhole-tui")
    process.arguments = ["peer", "run", "--service", service, "--name", name, "--home", home] + arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    var said = Data()
    while !String(decoding: said, as: UTF8.self).contains("is running") {
      let chunk = errors.fileHandleForReading.availableData
      guard !chunk.isEmpty else {
        stop()
        throw PeerProcessEnded(said: String(decoding: said, as: UTF8.self))
      }
      said.append(chunk)
    }
  }

  /// Sends `signal` to the peer while it runs.
  func signal(_ signal: Int32) {
    if process.isRunning { kill(process.processIdentifier, signal) }
  }

  /// Kills the peer (SIGKILL) if it still runs, and waits for it.
  func stop() {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }
}

/// `peer run` ended before it said it runs; `said` is what it wrote.
struct PeerProcessEnded: Error, CustomStringConvertible {
  var said: String
  var description: String { "peer run ended: \(said)" }
}
