import Dispatch
import Foundation
import Glibc
import Synchronization

/// `device-runner` in a child process; its output lines are collected as they arrive, so a
/// test waits for a line (an event) rather than sleeping.
final class ChildDevice: Sendable {
  private let process: Process
  let lines = Collector<String>()
  private let partial = ByteBox()
  private let errors = ByteBox()

  init(_ arguments: [String]) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: runnerPath)
    process.arguments = arguments
    let output = Pipe()
    let errorPipe = Pipe()
    process.standardOutput = output
    process.standardError = errorPipe
    process.standardInput = FileHandle.nullDevice
    let lines = lines
    let partial = partial
    output.fileHandleForReading.readabilityHandler = { handle in
      let chunk = handle.availableData
      if chunk.isEmpty {
        handle.readabilityHandler = nil
        return
      }
      let complete = partial.bytes.withLock { buffer -> [String] in
        buffer.append(contentsOf: chunk)
        var found: [String] = []
        while let newline = buffer.firstIndex(of: 10) {
          found.append(String(decoding: buffer[..<newline], as: UTF8.self))
          buffer.removeSubrange(...newline)
        }
        return found
      }
      for line in complete { lines.append(line) }
    }
    let errors = errors
    errorPipe.fileHandleForReading.readabilityHandler = { handle in
      let chunk = handle.availableData
      if chunk.isEmpty {
        handle.readabilityHandler = nil
      } else {
        errors.bytes.withLock { $0.append(contentsOf: chunk) }
      }
    }
    try process.run()
  }

  var pid: Int32 { process.processIdentifier }

  /// What the child wrote to standard error so far.
  var errorText: String { errors.bytes.withLock { String(decoding: $0, as: UTF8.self) } }

  /// Waits for a line that satisfies `condition`; `nil` when none came in time.
  func waitForLine(seconds: Double = 20, _ condition: (String) -> Bool) -> String? {
    lines.wait(seconds: seconds) { $0.contains(where: condition) }.first(where: condition)
  }

  /// SIGKILL, then waits for the process to end.
  func kill() {
    _ = Glibc.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// Waits for the process to end; its exit status, or `nil` if it did not end in time.
  func waitForExit(seconds: Double = 60) -> Int32? {
    let done = DispatchSemaphore(value: 0)
    let process = process
    DispatchQueue.global().async {
      process.waitUntilExit()
      done.signal()
    }
    guard done.wait(timeout: .now() + seconds) == .success else {
      kill()
      return nil
    }
    return process.terminationStatus
  }
}

/// Bytes shared between a pipe's reader and the test.
final class ByteBox: Sendable {
  let bytes = Mutex<[UInt8]>([])
}
