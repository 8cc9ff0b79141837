import Foundation
import Glibc
import Synchronization

/// A child process started with `posix_spawn` and reaped with `waitpid` on a thread of its own,
/// not Foundation's `Process`: `Process.waitUntilExit()` spins a run loop whose libdispatch
/// event loop (`_dispatch_event_loop_drain`) rarely crashed the test process (SIGSEGV) while
/// many children came and went.
///
/// Its standard streams go to `/dev/null`, a file, or a pipe read on a thread of its own; the
/// pipes are close-on-exec in this process, so no other child inherits them (a pipe's end would
/// otherwise come only when every child that inherited it had ended). The child keeps this
/// thread's signal mask, as `Process` children do (the test runner's threads block SIGTERM:
/// stop children with SIGKILL). The pid is never signalled after it is reaped, so a signal
/// cannot reach another process that was given the same pid.
public final class ChildProcess: Sendable {
  /// Where one of the child's standard streams goes.
  public enum Stream: Sendable {
    /// `/dev/null`.
    case null
    /// This process's own stream (a test's output, for a child worth watching by hand).
    case inherited
    /// A file, created or truncated.
    case file(String)
    /// A pipe whose chunks are handed to the closure as they come, on a thread of their own,
    /// then an empty chunk once the child (and whatever it started with the pipe) closed it.
    case pipe(@Sendable ([UInt8]) -> Void)
  }

  /// The child's process identifier.
  public let processIdentifier: pid_t
  private let state = Mutex<Int32?>(nil)
  private let ended = NSCondition()

  /// Starts `executable` (a path: no `PATH` search) with `arguments` (not counting the program's
  /// name), in `environment` (this process's when `nil`) and `directory` (this process's when
  /// `nil`), its standard input from `/dev/null`.
  public init(
    _ executable: String, arguments: [String], environment: [String: String]? = nil,
    directory: String? = nil, standardOutput: Stream = .null, standardError: Stream = .null
  ) throws(ChildProcessError) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let directory {
      guard let addChangeDirectory = GNU.addChangeDirectory else {
        throw ChildProcessError(
          "this C library cannot start a child in a directory (posix_spawn_file_actions_addchdir_np)")
      }
      _ = addChangeDirectory(&actions, directory)
    }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    var readers: [(descriptor: Int32, handler: @Sendable ([UInt8]) -> Void)] = []
    var childEnds: [Int32] = []
    defer { for descriptor in childEnds { close(descriptor) } }
    for (target, stream) in [(Int32(1), standardOutput), (Int32(2), standardError)] {
      switch stream {
      case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
      case .inherited: break
      case .file(let path):
        posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
      case .pipe(let handler):
        var ends: [Int32] = [-1, -1]
        guard let pipe2 = GNU.pipe2, pipe2(&ends, O_CLOEXEC) == 0 else {
          for reader in readers { close(reader.descriptor) }
          throw ChildProcessError("cannot make a pipe for \(executable): \(String(cString: strerror(errno)))")
        }
        // dup2 clears close-on-exec on the child's copy only.
        posix_spawn_file_actions_adddup2(&actions, ends[1], target)
        childEnds.append(ends[1])
        readers.append((ends[0], handler))
      }
    }
    let argv = [executable] + arguments
    let envp = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
    var pid: pid_t = 0
    let spawned = withCStrings(argv) { argvPointers in
      withCStrings(envp) { envPointers in
        posix_spawn(&pid, executable, &actions, nil, argvPointers, envPointers)
      }
    }
    guard spawned == 0 else {
      for reader in readers { close(reader.descriptor) }
      throw ChildProcessError("cannot start \(executable): \(String(cString: strerror(spawned)))")
    }
    processIdentifier = pid
    for reader in readers {
      let (descriptor, handler) = reader
      Thread.detachNewThread { Self.drain(descriptor, into: handler) }
    }
    Thread.detachNewThread { [self] in reap() }
  }

  /// Whether the child has not been reaped yet (a zombie not yet reaped still counts).
  public var isRunning: Bool { state.withLock { $0 == nil } }

  /// The child's exit status, or 128 + the signal that ended it; `nil` while it runs.
  public var exitStatus: Int32? { state.withLock { $0 } }

  /// As `Process.terminationStatus`: the exit status, or the signal that ended the child (0
  /// while it runs).
  public var terminationStatus: Int32 {
    guard let status = exitStatus else { return 0 }
    return status > 128 ? status - 128 : status
  }

  /// Sends `signal` unless the child is already reaped; whether it was sent.
  @discardableResult
  public func signal(_ signal: Int32) -> Bool {
    // Under the lock the reaper takes to reap: the pid is still this child's (alive or a zombie).
    state.withLock { status in status == nil && kill(processIdentifier, signal) == 0 }
  }

  /// Waits until the child ended, at most `seconds` (forever when `nil`): its ``exitStatus``,
  /// `nil` if it still runs.
  @discardableResult
  public func wait(seconds: Double? = nil) -> Int32? {
    let deadline = seconds.map { Date().addingTimeInterval($0) }
    ended.lock()
    defer { ended.unlock() }
    while exitStatus == nil {
      if let deadline {
        if !ended.wait(until: deadline) { break }
      } else {
        ended.wait()
      }
    }
    return exitStatus
  }

  /// As `Process.waitUntilExit()`.
  public func waitUntilExit() { wait() }

  /// Sends `signal` (SIGKILL by default) and waits for the child to end.
  public func stop(_ signal: Int32 = SIGKILL) {
    self.signal(signal)
    wait()
  }

  /// Waits for the child's end without reaping it, then reaps it under the lock that
  /// ``signal(_:)`` takes, so that no signal goes to a pid after it is freed.
  private func reap() {
    var information = siginfo_t()
    while waitid(P_PID, id_t(processIdentifier), &information, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
    state.withLock { status in
      var raw: Int32 = 0
      while waitpid(processIdentifier, &raw, 0) < 0 && errno == EINTR {}
      let signalled = raw & 0x7F
      status = signalled == 0 ? (raw >> 8) & 0xFF : 128 + signalled
    }
    ended.lock()
    ended.broadcast()
    ended.unlock()
  }

  /// Reads `descriptor` to its end, handing each chunk on, then an empty one; closes it.
  private static func drain(_ descriptor: Int32, into handler: @Sendable ([UInt8]) -> Void) {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { break }
      handler(Array(buffer[..<count]))
    }
    close(descriptor)
    handler([])
  }
}

/// A child process could not be started, in words.
public struct ChildProcessError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// glibc's GNU extensions, which the Glibc module does not import (they need `_GNU_SOURCE`).
private enum GNU {
  /// `pipe2(2)`: a pipe whose ends are close-on-exec from the start, so a child that another
  /// thread spawns at that moment does not inherit them.
  static let pipe2: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32)? = symbol("pipe2")
  /// `posix_spawn_file_actions_addchdir_np(3)` (glibc 2.29).
  static let addChangeDirectory:
    (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32)? =
      symbol("posix_spawn_file_actions_addchdir_np")

  private static func symbol<Function>(_ name: String) -> Function? {
    guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
    return unsafeBitCast(address, to: Function.self)
  }
}

private func withCStrings<Result>(
  _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
) -> Result {
  let pointers = strings.map { strdup($0) } + [nil]
  defer { pointers.forEach { free($0) } }
  return body(pointers)
}
