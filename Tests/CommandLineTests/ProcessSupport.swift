import Foundation
import Glibc
import Synchronization
import TestSupport

/// The built `wormhole-tui`, next to the test bundle in SwiftPM's build directory.
let executablePath: String = {
  let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  return me.deletingLastPathComponent().appendingPathComponent("wormhole-tui").path
}()

/// Bytes appended by a reader thread and read by the test.
final class SharedBuffer: Sendable {
  private let state = Mutex((data: Data(), ended: false))
  func append(_ chunk: Data) { state.withLock { $0.data.append(chunk) } }
  func end() { state.withLock { $0.ended = true } }
  var data: Data { state.withLock { $0.data } }
  /// Whether the writer closed its end of the pipe: nothing more will arrive.
  var ended: Bool { state.withLock { $0.ended } }
}

/// What a finished command printed and returned.
struct CommandResult {
  var status: Int32
  var outputData: Data
  var errors: String
  /// `.uncaughtSignal` when the process was killed (then `status` is the signal number).
  var reason: Process.TerminationReason = .exit

  var output: String { String(decoding: outputData, as: UTF8.self) }

  var lines: [String] { output.split(separator: "\n").map(String.init) }
}

/// A running `wormhole-tui` whose output is collected as it arrives, so a test can wait for a
/// line (an event) instead of sleeping.
final class RunningCommand: Sendable {
  private let process: Process
  private let output = SharedBuffer()
  private let errors = SharedBuffer()
  private let changed = DispatchSemaphore(value: 0)
  private let input: Pipe

  /// Starts `executable` (the built `wormhole-tui` unless told) with `arguments`. With
  /// `standardOutput`, the process writes there (`/dev/full`, a pipe nobody reads) and
  /// ``currentOutput`` stays empty.
  init(
    _ arguments: [String], environment: [String: String] = [:], executable: String = executablePath,
    standardOutput: FileHandle? = nil
  ) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var merged = ProcessInfo.processInfo.environment
    merged.merge(environment) { $1 }
    process.environment = merged
    let outputPipe = Pipe()
    let errorPipe = Pipe()
    input = Pipe()
    process.standardOutput = standardOutput ?? outputPipe
    process.standardError = errorPipe
    process.standardInput = input
    try process.run()
    if standardOutput == nil {
      RunningCommand.collect(outputPipe.fileHandleForReading, into: output, signal: changed)
    } else {
      output.end()
    }
    RunningCommand.collect(errorPipe.fileHandleForReading, into: errors, signal: changed)
  }

  private static func collect(_ handle: FileHandle, into buffer: SharedBuffer, signal: DispatchSemaphore) {
    Thread.detachNewThread {
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        buffer.append(chunk)
        signal.signal()
      }
      buffer.end()
      signal.signal()
    }
  }

  var currentOutput: String { String(decoding: output.data, as: UTF8.self) }
  var currentErrors: String { String(decoding: errors.data, as: UTF8.self) }

  /// Waits until standard error (or output) contains `text`; false after `seconds` (a failure
  /// bound only: a passing test never waits for it).
  func waitFor(_ text: String, inErrors: Bool = true, seconds: Double = 20) -> Bool {
    let deadline = DispatchTime.now() + seconds
    while !(inErrors ? currentErrors : currentOutput).contains(text) {
      if !process.isRunning && !(inErrors ? currentErrors : currentOutput).contains(text) {
        // Drain what is left, then decide.
        _ = changed.wait(timeout: .now() + 0.5)
        return (inErrors ? currentErrors : currentOutput).contains(text)
      }
      if changed.wait(timeout: deadline) == .timedOut { return false }
    }
    return true
  }

  func write(_ text: String) { write(Data(text.utf8)) }
  func write(_ bytes: Data) { input.fileHandleForWriting.write(bytes) }
  func closeInput() { try? input.fileHandleForWriting.close() }

  /// Waits for the process to exit (killing it after `seconds`) and returns what it printed.
  func finish(seconds: Double = 60) -> CommandResult {
    let exited = DispatchSemaphore(value: 0)
    let process = self.process
    Thread.detachNewThread {
      process.waitUntilExit()
      exited.signal()
    }
    if exited.wait(timeout: .now() + seconds) == .timedOut {
      process.terminate()
      // A child can inherit SIGTERM blocked from the thread that started it: then kill it.
      if exited.wait(timeout: .now() + 5) == .timedOut {
        kill(process.processIdentifier, SIGKILL)
        exited.wait()
      }
    }
    // The pipes end when the process and everything it started have closed them.
    let deadline = DispatchTime.now() + 10
    while !(output.ended && errors.ended) {
      if changed.wait(timeout: deadline) == .timedOut { break }
    }
    return CommandResult(
      status: process.terminationStatus, outputData: output.data, errors: currentErrors,
      reason: process.terminationReason)
  }

  func interrupt() { process.interrupt() }
  /// Sends `number` (SIGSTOP, SIGCONT, ...).
  func signal(_ number: Int32) { kill(process.processIdentifier, number) }
  /// Sends SIGTERM.
  func terminate() { process.terminate() }
}

/// Runs `wormhole-tui arguments…` to completion, with `input` on standard input.
func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws
  -> CommandResult
{
  let command = try RunningCommand(arguments, environment: environment)
  if let input { command.write(input) }
  command.closeInput()
  return command.finish()
}

/// Runs `script` with `/bin/sh -c`, its `$0` the built `wormhole-tui` and `$1`… `arguments`: for
/// what `Process` cannot do, such as passing bytes that are not UTF-8 or closing a descriptor.
func runShell(_ script: String, _ arguments: [String] = [], input: Data? = nil) throws -> CommandResult {
  let command = try RunningCommand(
    ["-c", script, executablePath] + arguments, executable: "/bin/sh")
  if let input { command.write(input) }
  command.closeInput()
  return command.finish()
}

/// Runs another program (`setpriv`, a wrapper) to completion, its output collected.
func runProgram(_ executable: String, _ arguments: [String]) throws -> CommandResult {
  let command = try RunningCommand(arguments, executable: executable)
  command.closeInput()
  return command.finish()
}

/// The shared hermetic directory of every test target.
typealias TemporaryDirectory = TestSupport.TemporaryDirectory
