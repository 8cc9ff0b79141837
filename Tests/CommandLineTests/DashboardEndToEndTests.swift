import Foundation
import Glibc
import KeyedArchive
import TestSupport
import Testing
import Wormhole

/// The real binary in a real terminal (tmux), for what only a real terminal shows: the wiring
/// of the program (its flags reach the loop and the executor), drawing through ncurses, resize
/// by the window, and the terminal restored on every exit. The loop itself is tested in
/// memory (DashboardRuntimeTests).
@Suite(.serialized, .hangLimit) struct DashboardEndToEndTests {
  /// The dashboard on `home` in a `width` x 32 pane, with `options`.
  static func dashboard(on home: String, _ options: String = "", width: Int = 110) throws -> TmuxPane {
    try TmuxPane(width: width, height: 32) { _ in
      "env TERM=xterm-256color LANG=C.UTF-8 \(executablePath) --home \(home) \(options)"
    }
  }

  @Test func anOperatorPassesThroughTheFormAndQuitsWithTheTerminalRestored() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let wormhole = try Wormhole(applicationGroupIdentifier: "group.e2e", home: home.path)
    try wormhole.passMessage(.string("hello"), identifier: "greeting")
    let pane = try Self.dashboard(on: home.path)
    pane.waitFor("greeting")
    #expect(pane.screen().contains("\"hello\""))

    // A pass from another process appears.
    let other = try run(["pass", "--home", home.path, "--group", "group.e2e", "from-outside", "{\"n\":1}"])
    #expect(other.status == 0)
    pane.waitFor("from-outside")

    // Pass through the form: it starts on the value, with the selected mailbox's identifier.
    pane.send("p")
    pane.waitFor("Pass a message")
    pane.send("BTab", "C-u")
    pane.type("typed")
    pane.send("Tab")
    pane.type("[1, 2, 3]")
    pane.send("Enter")
    pane.waitFor("passed typed")
    #expect(try wormhole.message(withIdentifier: "typed") == .array([.integer(1), .integer(2), .integer(3)]))

    // A tiny window says so, and recovers.
    pane.resize(width: 30, height: 10)
    pane.waitFor("terminal too small")
    pane.resize(width: 110, height: 32)
    pane.waitFor("Mailboxes")

    pane.send("q")
    #expect(pane.waitUntil { pane.isDead })
    #expect(!pane.isOnAlternateScreen)
  }

  /// `--read-only` reaches both the reducer and the executor of the program.
  @Test func aReadOnlyDashboardClearsNothing() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let wormhole = try Wormhole(applicationGroupIdentifier: "group.e2e", home: home.path)
    try wormhole.passMessage(.string("hello"), identifier: "greeting")
    let before = home.allFiles()
    // Wide enough for the whole status line, refusal included.
    let pane = try Self.dashboard(on: home.path, "--read-only", width: 220)
    pane.waitFor("greeting")
    pane.type(":clear-all")
    pane.send("Enter")
    // Refused at once (no confirmation opens); a `y` after it is the copy key, which writes
    // nothing either.
    pane.waitFor("read-only:")
    pane.send("y")
    pane.waitFor("copied the value")
    pane.send("q")
    #expect(pane.waitUntil { pane.isDead })
    #expect(home.allFiles() == before)
    #expect(try wormhole.message(withIdentifier: "greeting") == .string("hello"))
  }

  @Test func sigtermRestoresTheTerminal() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    _ = try Wormhole(applicationGroupIdentifier: "group.e2e", home: home.path)
    let pane = try Self.dashboard(on: home.path)
    pane.waitFor("Mailboxes")
    kill(pane.panePID, SIGTERM)
    #expect(pane.waitUntil { pane.isDead })
    #expect(!pane.isOnAlternateScreen)
  }

  /// The terminal emulator closes (tmux killed): the dashboard ends, by SIGHUP here. (Without
  /// the signal, as for a process that had SIGHUP blocked, the backend now ends on the
  /// terminal's hang-up too, where it used to spin reading end-of-file; that path has no
  /// test of its own.)
  @Test func aTerminalThatGoesAwayEndsTheDashboard() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    _ = try Wormhole(applicationGroupIdentifier: "group.e2e", home: home.path)
    let pane = try Self.dashboard(on: home.path)
    pane.waitFor("Mailboxes")
    let pid = pane.panePID
    #expect(pid > 0)
    pane.kill()
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
