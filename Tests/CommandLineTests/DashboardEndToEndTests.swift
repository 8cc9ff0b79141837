import Foundation
import Glibc
import KeyedArchive
import Testing
import Wormhole

/// The real binary in a real terminal (tmux): what an operator sees and does, checked on the
/// screen and then on the disk.
final class TmuxSession {
  let name: String

  init(command: String, width: Int = 110, height: Int = 32) throws {
    name = "wormhole-e2e-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let result = tmux([
      "-L", name, "new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", command,
    ])
    guard result.status == 0 else { throw TmuxError.failed("new-session: \(result.output)") }
    _ = tmux(["-L", name, "set-option", "-t", name, "remain-on-exit", "on"])
  }

  // A server of its own (-L): other tmux sessions on the machine are never touched.
  deinit { _ = tmux(["-L", name, "kill-server"]) }

  /// The dashboard on `home`, with an empty group there so that it has a directory to show.
  convenience init(dashboardOn home: String) throws {
    _ = try Wormhole(applicationGroupIdentifier: "group.e2e", home: home)
    try self.init(command: "env TERM=xterm-256color LANG=C.UTF-8 \(executablePath) --home \(home)")
  }

  /// The process in the pane (the dashboard: `env` replaces itself with it).
  var panePID: pid_t {
    let text = tmux(["-L", name, "display-message", "-p", "-t", name, "#{pane_pid}"]).output
    return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
  }

  /// The screen as text.
  var screen: String { tmux(["-L", name, "capture-pane", "-p", "-t", name]).output }

  /// Types keys in tmux's notation (`"p"`, `"Enter"`, `"Tab"`, `"Escape"`, `"C-c"`); literal text with `literal`.
  func send(_ keys: String...) { _ = tmux(["-L", name, "send-keys", "-t", name] + keys) }
  func type(_ text: String) { _ = tmux(["-L", name, "send-keys", "-t", name, "-l", text]) }
  func resize(width: Int, height: Int) {
    _ = tmux(["-L", name, "resize-window", "-t", name, "-x", "\(width)", "-y", "\(height)"])
  }

  /// Waits until the screen satisfies `condition`, up to `seconds`: the screen is the event.
  @discardableResult
  func waitFor(seconds: Double = 20, _ condition: (String) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if condition(screen) { return true }
      usleep(50_000)
    }
    return condition(screen)
  }

  func waitFor(_ text: String, seconds: Double = 20) -> Bool {
    waitFor(seconds: seconds) { $0.contains(text) }
  }

  /// Whether the program has exited.
  var isDead: Bool {
    tmux(["-L", name, "display-message", "-p", "-t", name, "#{pane_dead}"]).output.hasPrefix("1")
  }
  /// Whether the pane is on the alternate screen (a program that did not restore the terminal).
  var isOnAlternateScreen: Bool {
    tmux(["-L", name, "display-message", "-p", "-t", name, "#{alternate_on}"]).output.hasPrefix("1")
  }
}

enum TmuxError: Error { case failed(String) }

/// Runs `tmux arguments…` and returns its status and output. Not through Foundation's
/// `Process`: the tmux server that `new-session` forks keeps the descriptor `Process` watches
/// for its child's end, so `waitUntilExit` would never return. Signals are unblocked in the
/// child, so that the dashboard in the pane can be interrupted.
@discardableResult
func tmux(_ arguments: [String]) -> (status: Int32, output: String) {
  let outputPath = NSTemporaryDirectory() + "/wormhole-tmux-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
  defer { unlink(outputPath) }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO)
  var attributes = posix_spawnattr_t()
  posix_spawnattr_init(&attributes)
  defer { posix_spawnattr_destroy(&attributes) }
  var noSignals = sigset_t()
  sigemptyset(&noSignals)
  posix_spawnattr_setsigmask(&attributes, &noSignals)
  posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
  var argv = (["tmux"] + arguments).map { strdup($0) } + [nil]
  defer { for pointer in argv { free(pointer) } }
  var pid: pid_t = 0
  guard posix_spawnp(&pid, "tmux", &actions, &attributes, &argv, environ) == 0 else {
    return (-1, "tmux could not be started")
  }
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
  return ((status >> 8) & 0xff, output)
}

@Suite(.serialized, .timeLimit(.minutes(3))) struct DashboardEndToEndTests {
  @Test func anOperatorPassesClearsReplaysAndQuitsWithTheTerminalRestored() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let wormhole = try Wormhole(applicationGroupIdentifier: "group.e2e", home: home.path)
    try wormhole.passMessage(.string("hello"), identifier: "greeting")
    let session = try TmuxSession(
      command: "env TERM=xterm-256color LANG=C.UTF-8 \(executablePath) --home \(home.path)")
    #expect(session.waitFor("greeting"), "the dashboard did not show the mailbox:\n\(session.screen)")
    #expect(session.screen.contains("\"hello\""))

    // A pass from another process appears.
    let other = try run(["pass", "--home", home.path, "--group", "group.e2e", "from-outside", "{\"n\":1}"])
    #expect(other.status == 0)
    #expect(session.waitFor("from-outside"), "\(session.screen)")

    // Pass through the form.
    session.send("p")
    #expect(session.waitFor("Pass a message"))
    // The form starts on the value, with the selected mailbox's identifier: back to it.
    session.send("BTab", "C-u")
    session.type("typed")
    session.send("Tab")
    session.type("[1, 2, 3]")
    session.send("Enter")
    #expect(session.waitFor("passed typed"), "\(session.screen)")
    #expect(try wormhole.message(withIdentifier: "typed") == .array([.integer(1), .integer(2), .integer(3)]))

    // Clear with a confirmation: select "greeting" (name order: from-outside, greeting, typed).
    session.send("g", "j", "j", "d")
    #expect(session.waitFor("Clear greeting?"), "\(session.screen)")
    session.send("y")
    #expect(session.waitFor("cleared greeting"), "\(session.screen)")
    #expect(try wormhole.message(withIdentifier: "greeting") == nil)

    // Replay the newest traffic entry to another identifier.
    session.send("Tab", "Tab", "k", "k", "r")  // the newest entry is the clear; the pass before it
    #expect(session.waitFor("Replay"), "\(session.screen)")
    session.send("C-u")
    session.type("replayed")
    session.send("Enter")
    #expect(session.waitFor("replayed entry"), "\(session.screen)")
    let records = try wormhole.trafficRecords()
    #expect(records.contains { $0.identifier == "replayed" && $0.replayOf != nil })

    // Help, then back.
    session.send("?")
    #expect(session.waitFor("Keys (any other key closes)"))
    session.send("Escape")
    #expect(session.waitFor { !$0.contains("Keys (any other key closes)") })

    // A tiny terminal says so, and recovers.
    session.resize(width: 30, height: 10)
    #expect(session.waitFor("terminal too small"), "\(session.screen)")
    session.resize(width: 110, height: 32)
    #expect(session.waitFor("Mailboxes"))

    session.send("q")
    #expect(session.waitFor { _ in session.isDead })
    #expect(!session.isOnAlternateScreen)
  }

  @Test func sigtermRestoresTheTerminal() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let session = try TmuxSession(dashboardOn: home.path)
    #expect(session.waitFor("Mailboxes"))
    kill(session.panePID, SIGTERM)
    #expect(session.waitFor { _ in session.isDead })
    #expect(!session.isOnAlternateScreen)
  }

  /// The terminal emulator closes (tmux killed): the dashboard ends, by SIGHUP here. (Without
  /// the signal, as for a process that had SIGHUP blocked, the backend now ends on the
  /// terminal's hang-up too, where it used to spin reading end-of-file; that path has no
  /// test of its own.)
  @Test func aTerminalThatGoesAwayEndsTheDashboard() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let session = try TmuxSession(dashboardOn: home.path)
    #expect(session.waitFor("Mailboxes"))
    let pid = session.panePID
    #expect(pid > 0)
    _ = tmux(["-L", session.name, "kill-server"])
    let deadline = Date().addingTimeInterval(20)
    // The pane's process is not our child: it is gone when signal 0 can no longer reach it.
    while Date() < deadline && kill(pid, 0) == 0 && !isZombie(pid) { usleep(50_000) }
    #expect(kill(pid, 0) != 0 || isZombie(pid), "the dashboard outlived its terminal")
    if kill(pid, 0) == 0 && !isZombie(pid) { kill(pid, SIGKILL) }
  }

  @Test func withoutATerminalItPointsAtSnapshotAndDump() throws {
    let result = try run([])
    #expect(result.status == 2)
    #expect(result.errors.contains("snapshot"))
  }
}

/// Whether `pid` has ended and waits for its parent to collect it.
func isZombie(_ pid: pid_t) -> Bool {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = stat.lastIndex(of: ")")
  else { return true }
  return stat[stat.index(close, offsetBy: 2)...].hasPrefix("Z")
}
