import Foundation
import Glibc
import Testing

/// A tmux server of its own (its socket in a temporary directory) with one pane running a
/// command: tests type into it and read its screen, waiting for what they expect to appear.
/// The one tmux harness of the tests (the terminal backend's and the dashboard's end to end).
public final class TmuxPane {
  /// The pane's temporary directory: its socket, its configuration, files its command writes.
  public let directory: String
  private var socket: String { directory + "/tmux.socket" }

  /// Starts `command(directory)` in a `width` x `height` pane; `TERM` is `tmux-256color`, panes stay
  /// after their command ends (so the restored screen can be read), and OSC 52 fills tmux's
  /// buffer.
  public init(width: Int = 40, height: Int = 10, command: (_ directory: String) -> String) throws {
    var template = Array((NSTemporaryDirectory() + "/terminal-backend-XXXXXX").utf8CString)
    directory = template.withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return NSTemporaryDirectory() }
      return String(cString: base)
    }
    let configuration = """
      set -g remain-on-exit on
      set -g default-terminal tmux-256color
      set -g set-clipboard on
      set -g status off

      """
    try configuration.write(toFile: directory + "/tmux.conf", atomically: true, encoding: .utf8)
    let result = try tmux([
      "-f", directory + "/tmux.conf", "new-session", "-d", "-s", "check", "-x", "\(width)", "-y", "\(height)",
      command(directory),
    ])
    if result.status != 0 { throw TmuxError(message: "tmux new-session failed: \(result.output)") }
  }

  deinit {
    kill()
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Ends the tmux server and what runs in it.
  public func kill() {
    _ = try? tmux(["kill-server"])
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// The path of a file in the pane's temporary directory.
  public func path(_ name: String) -> String { directory + "/" + name }

  /// Runs tmux on this server.
  ///
  /// Through `posix_spawn` and `waitpid`, not `Process`: the tmux server that `new-session`
  /// forks inherits what `Process` watches for the end of its child, so `Process` would wait
  /// for the server too. Output goes to a file for the same reason.
  @discardableResult
  public func tmux(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let outputPath = directory + "/tmux.output"
    unlink(outputPath)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // Nothing else of this process reaches tmux (the server lives on with what it inherits).
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
      posix_spawn_file_actions_addclose(&actions, descriptor)
    }
    // Signals as a login shell has them: none blocked, none ignored (the test runner's threads
    // may block some, and a pane would inherit that).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var environment = ProcessInfo.processInfo.environment
    environment["LANG"] = "C.UTF-8"
    for name in ["TMUX", "NO_COLOR", "COLORTERM"] { environment.removeValue(forKey: name) }
    let argv = ["tmux", "-u", "-S", socket] + arguments
    let envp = environment.map { "\($0.key)=\($0.value)" }
    var pid: pid_t = 0
    let spawned = withCStrings(argv) { argvPointers in
      withCStrings(envp) { envPointers in
        posix_spawnp(&pid, "tmux", &actions, &attributes, argvPointers, envPointers)
      }
    }
    guard spawned == 0 else { throw TmuxError(message: "cannot run tmux: errno \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let data = FileManager.default.contents(atPath: outputPath) ?? Data()
    let exited = status & 0x7F == 0
    return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), String(decoding: data, as: UTF8.self))
  }

  /// The pane's text; with `escapes`, with its colours and attributes as escape sequences.
  public func screen(escapes: Bool = false) -> String {
    let arguments = ["capture-pane", "-p", "-t", "check"] + (escapes ? ["-e"] : [])
    return (try? tmux(arguments).output) ?? ""
  }

  /// A tmux format for the pane, such as `#{alternate_on}`.
  public func format(_ format: String) -> String {
    ((try? tmux(["display-message", "-p", "-t", "check", format]).output) ?? "")
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Types keys (tmux key names such as `Up`, `C-d`, `Escape`), or `literal` bytes.
  public func send(_ keys: String..., literal: Bool = false) {
    _ = try? tmux(["send-keys", "-t", "check"] + (literal ? ["-l"] : []) + keys)
  }

  /// Waits until `condition` holds, reading again as the pane changes; false after a generous
  /// bound that only a failing test reaches.
  public func waitUntil(_ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      if condition() { return true }
      usleep(10_000)
    }
    return condition()
  }

  /// Waits until the pane's text contains `text`; records the screen when it never does.
  @discardableResult
  public func waitFor(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    if waitUntil({ screen().contains(text) }) { return true }
    Issue.record("the pane never showed \"\(text)\"; it shows:\n\(screen())", sourceLocation: sourceLocation)
    return false
  }

  /// Types `text` as it is (no key names).
  public func type(_ text: String) { send(text, literal: true) }

  /// Resizes the window, as a terminal emulator's window is resized.
  public func resize(width: Int, height: Int) {
    _ = try? tmux(["resize-window", "-t", "check", "-x", "\(width)", "-y", "\(height)"])
  }

  /// The process the pane runs (its command; `env` replaces itself with what it starts).
  public var panePID: pid_t { pid_t(format("#{pane_pid}")) ?? 0 }
  /// Whether the pane's command has ended.
  public var isDead: Bool { format("#{pane_dead}") == "1" }
  /// Whether the pane is on the alternate screen (a program that did not restore the terminal).
  public var isOnAlternateScreen: Bool { format("#{alternate_on}") == "1" }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings.
private func withCStrings<Result>(
  _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
) -> Result {
  let pointers = strings.map { strdup($0) } + [nil]
  defer { pointers.forEach { free($0) } }
  return body(pointers)
}

/// tmux failed or could not be run.
public struct TmuxError: Error, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}
