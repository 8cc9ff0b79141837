import Foundation
import Glibc
import TestSupport
import Testing

/// The real backend in a real terminal: `terminal-backend-check` runs in a tmux pane.
@Suite(.serialized, .hangLimit)
struct TerminalInTmuxTests {
  /// A shell line that runs the check, then reports whether the terminal's modes are the same
  /// as before it, and its exit status; `read` keeps the pane alive for the test to look at.
  static func checkedRun(_ directory: String, _ extra: String = "") -> String {
    "sh -c 'before=$(stty -g); \(checkExecutable) \(directory)/pid \(extra); status=$?; "
      + "if [ \"$before\" = \"$(stty -g)\" ]; then echo modes=same; else echo modes=changed; fi; "
      + "echo exit=$status; read line'"
  }

  @Test func drawsWideCharactersAndColoursAndReadsKeys() throws {
    let pane = try TmuxPane { Self.checkedRun($0) }
    pane.waitFor("event: none")
    let screen = pane.screen(escapes: true)
    #expect(screen.contains("漢字 wide"))
    // The title is bold red; the accent, #0087ff on white, is colour 33 of 256.
    #expect(screen.contains("\u{1B}[1m\u{1B}[31m漢字 wide"))
    #expect(screen.contains("\u{1B}[38;5;33m\u{1B}[47mcolour"))
    #expect(pane.screen().contains("colours: indexed256 TERM=tmux-256color"))

    pane.send("Up")
    pane.waitFor("event: key <Up>")
    pane.send("Escape")
    pane.waitFor("event: key <Esc>")
    pane.send("BTab")
    pane.waitFor("event: key <S-Tab>")
    pane.send("C-d")
    pane.waitFor("event: key <C-d>")
    pane.send("NPage")
    pane.waitFor("event: key <PgDn>")
    pane.send("F5")
    pane.waitFor("event: key <F5>")
    pane.send("é")
    pane.waitFor("event: key é")

    pane.send("q")
    pane.waitFor("exit=0")
    #expect(pane.screen().contains("modes=same"))
    #expect(pane.format("#{alternate_on} #{cursor_flag}") == "0 1")
  }

  @Test func narrowCharactersReplaceWideOnesAndBack() throws {
    let pane = try TmuxPane { Self.checkedRun($0) }
    pane.waitFor("event: none")
    pane.send("n")
    pane.waitFor("event: narrow")
    #expect(pane.screen().hasPrefix("abcd narr colour"))
    pane.send("n")
    pane.waitFor("event: wide")
    #expect(pane.screen().hasPrefix("漢字 wide colour"))
  }

  @Test func reportsResizeOnceWithTheNewSize() throws {
    let pane = try TmuxPane { Self.checkedRun($0) }
    pane.waitFor("size: 40x10")
    try pane.tmux(["resize-window", "-t", "check", "-x", "50", "-y", "12"])
    pane.waitFor("event: resize 50x12")
    #expect(pane.screen().contains("size: 50x12"))
    // The frame after the resize is whole: the title is still there.
    #expect(pane.screen().contains("漢字 wide colour"))
  }

  @Test func copiesThroughOSC52() throws {
    let pane = try TmuxPane { Self.checkedRun($0) }
    pane.waitFor("event: none")
    pane.send("c")
    pane.waitFor("event: copied")
    #expect(pane.waitUntil { (try? pane.tmux(["show-buffer"]).output) == "hello clipboard" })
  }

  @Test func aWaitEndsWithNothingWhenTheCallersDescriptorIsReadableOrTimeIsUp() throws {
    let pane = try TmuxPane { Self.checkedRun($0) }
    pane.waitFor("event: none")
    pane.send("w")
    pane.waitFor("event: woken")
    pane.send("t")
    pane.waitFor("event: timed out")
  }

  @Test func decodesClicksAndTheWheel() throws {
    let pane = try TmuxPane { Self.checkedRun($0) }
    pane.waitFor("event: none")
    pane.send("m")
    pane.waitFor("event: mouse on")
    // X10 encoding, as tmux sends it to a program that asked for mouse reporting: button,
    // column and row, each plus 32, the row and column counted from 1.
    pane.send("\u{1B}[M #$", literal: true)
    pane.waitFor("event: mouse press left at 3,2")
    pane.send("\u{1B}[Ma%$", literal: true)
    pane.waitFor("event: mouse wheel down at 3,4")
  }

  @Test func sigtermRestoresTheTerminalAndEndsByTheSignal() throws {
    let pane = try TmuxPane { Self.checkedRun($0) }
    pane.waitFor("event: none")
    #expect(pane.format("#{alternate_on} #{cursor_flag}") == "1 0")
    let pid = try #require(pane.checkProcess())
    kill(pid, SIGTERM)
    pane.waitFor("exit=143")
    #expect(pane.screen().contains("modes=same"))
    #expect(!pane.screen().contains("漢字"))
    #expect(pane.format("#{alternate_on} #{cursor_flag}") == "0 1")
  }

  @Test func aSecondInterruptEndsALoopThatDidNotStop() throws {
    let pane = try TmuxPane { Self.checkedRun($0, "stubborn") }
    pane.waitFor("event: none")
    let pid = try #require(pane.checkProcess())
    kill(pid, SIGINT)
    pane.waitFor("interrupted 2")
    kill(pid, SIGTERM)
    pane.waitFor("exit=143")
    #expect(pane.screen().contains("modes=same"))
    #expect(pane.format("#{alternate_on} #{cursor_flag}") == "0 1")
  }

  @Test func exitWithoutStopRestoresTheTerminal() throws {
    let pane = try TmuxPane { Self.checkedRun($0) }
    pane.waitFor("event: none")
    pane.send("x")
    pane.waitFor("exit=3")
    #expect(pane.screen().contains("modes=same"))
    #expect(pane.format("#{alternate_on} #{cursor_flag}") == "0 1")
  }

  @Test func aCrashSignalRestoresTheTerminalThenCrashes() throws {
    let pane = try TmuxPane { Self.checkedRun($0) }
    pane.waitFor("event: none")
    let pid = try #require(pane.checkProcess())
    kill(pid, SIGSEGV)
    pane.waitFor("exit=139")
    #expect(pane.screen().contains("modes=same"))
    #expect(pane.format("#{alternate_on} #{cursor_flag}") == "0 1")
  }

  /// The other signals whose default is to dump core (SIGQUIT is Ctrl-\\ at a shell's terminal,
  /// and Swift's backtracer answers it interactively on a terminal left raw).
  @Test(arguments: [SIGQUIT, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ])
  func everyCoreDumpingSignalRestoresTheTerminalThenEndsByIt(signal: Int32) throws {
    let pane = try TmuxPane { Self.checkedRun($0) }
    pane.waitFor("event: none")
    let pid = try #require(pane.checkProcess())
    kill(pid, signal)
    pane.waitFor("exit=\(128 + signal)")
    #expect(pane.screen().contains("modes=same"))
    #expect(pane.format("#{alternate_on} #{cursor_flag}") == "0 1")
  }

  /// A core-dumping signal the parent left ignored (`trap '' QUIT` in a script, or SIGXFSZ so
  /// that a write past the size limit fails with EFBIG instead) stays ignored: the terminal's
  /// crash handler is not installed over it, so it does not end the program.
  @Test(arguments: [SIGQUIT, SIGXFSZ])
  func aCoreDumpingSignalLeftIgnoredStaysIgnored(signal: Int32) throws {
    let name = signal == SIGQUIT ? "QUIT" : "XFSZ"
    let pane = try TmuxPane { directory in
      "sh -c 'trap \"\" \(name); \(checkExecutable) \(directory)/pid; echo exit=$?; read line'"
    }
    pane.waitFor("event: none")
    let pid = try #require(pane.checkProcess())
    kill(pid, signal)
    // Still running: the next key is read and shown.
    pane.send("j")
    pane.waitFor("event: key j")
    pane.send("q")
    pane.waitFor("exit=0")
  }

  @Test func ctrlZSuspendsWithTheTerminalRestoredAndResumeRedraws() throws {
    // An interactive shell with job control, as a person runs it: Ctrl-Z, then `fg`.
    let pane = try TmuxPane(width: 60) { _ in "env PS1='$ ' bash --norc --noprofile -i" }
    pane.waitFor("$")
    pane.send("\(checkExecutable) \(pane.path("pid")); echo exit=$?", "Enter")
    pane.waitFor("event: none")
    pane.send("C-z")
    pane.waitFor("Stopped")
    #expect(pane.format("#{alternate_on} #{cursor_flag}") == "0 1")
    pane.send("fg", "Enter")
    pane.waitFor("resumed: 1")
    #expect(pane.screen().contains("漢字 wide colour"))
    #expect(pane.format("#{alternate_on} #{cursor_flag}") == "1 0")
    pane.send("q")
    pane.waitFor("quit")
  }

  @Test func continuingAfterSigstopTakesTheTerminalAgain() throws {
    let pane = try TmuxPane { Self.checkedRun($0) }
    pane.waitFor("event: none")
    let pid = try #require(pane.checkProcess())
    kill(pid, SIGSTOP)
    #expect(pane.waitUntil { Self.state(of: pid) == "T" })
    // Meanwhile someone puts the terminal back in line mode and writes over the screen.
    let tty = pane.format("#{pane_tty}")
    try pane.tmux(["run-shell", "stty -F \(tty) sane; printf 'garbage from elsewhere' > \(tty)"])
    pane.waitFor("garbage from elsewhere")
    kill(pid, SIGCONT)
    pane.waitFor("resumed: 1")
    #expect(!pane.screen().contains("garbage"))
    // One key, no Enter: the terminal is out of line mode again.
    pane.send("j")
    pane.waitFor("event: key j")
  }

  /// The state letter of a process (`S` sleeping, `T` stopped...), from /proc.
  static func state(of pid: pid_t) -> String? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
  }

  @Test func noColorKeepsBoldAndDropsColour() throws {
    let pane = try TmuxPane { "env NO_COLOR=1 " + Self.checkedRun($0) }
    pane.waitFor("event: none")
    #expect(pane.screen().contains("colours: none"))
    let screen = pane.screen(escapes: true)
    #expect(screen.contains("\u{1B}[1m漢字 wide"))
    #expect(!screen.contains("\u{1B}[31m"))
    #expect(!screen.contains("38;5;"))
  }
}
