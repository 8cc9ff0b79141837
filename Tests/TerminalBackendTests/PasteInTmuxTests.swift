import Foundation
import Glibc
import TestSupport
import Testing

/// Bracketed paste in a real terminal: tmux's `paste-buffer -p` marks the text as a paste when
/// the program asked for it (mode 2004), and sends it as plain keys otherwise.
@Suite(.serialized, .hangLimit)
struct PasteInTmuxTests {
  /// About 1 MiB of lines mixing ASCII, accents, CJK and emoji, so that reads cut characters.
  static let megabyte: String = {
    var text = ""
    var line = 0
    while text.utf8.count < 1 << 20 {
      text += "line \(line): héllo wörld 漢字 😀 {\"key\": [1, 2, 3]}\n"
      line += 1
    }
    return text
  }()

  /// Loads `text` into tmux buffer `clip` and pastes it into the pane, bracketed with `marked`.
  static func paste(_ text: String, into pane: TmuxPane, marked: Bool = true) throws {
    let file = pane.path("clip")
    try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    try pane.tmux(["load-buffer", "-b", "clip", file])
    try pane.tmux(["paste-buffer", "-b", "clip", "-t", "check"] + (marked ? ["-p"] : []))
  }

  @Test func aMegabytePasteArrivesWholeAsOneEventWellUnderASecond() throws {
    let pane = try TmuxPane { TerminalInTmuxTests.checkedRun($0) }
    pane.waitFor("event: none")
    let text = Self.megabyte
    let started = Date()
    try Self.paste(text, into: pane)
    pane.waitFor("event: paste \(text.utf8.count) bytes")
    let elapsed = Date().timeIntervalSince(started)
    let received = try String(contentsOfFile: pane.path("pid.paste"), encoding: .utf8)
    #expect(received == text)
    #expect(elapsed < 1, "a 1 MiB paste took \(elapsed) s")
    // Keys are keys again afterwards.
    pane.send("j")
    pane.waitFor("event: key j")
  }

  @Test func aKeyRightAfterAPasteIsStillAKey() throws {
    let pane = try TmuxPane { TerminalInTmuxTests.checkedRun($0) }
    pane.waitFor("event: none")
    try Self.paste("xyz\u{1B}[A<Enter>\n", into: pane)
    pane.send("j")
    pane.waitFor("event: key j")
    #expect(try String(contentsOfFile: pane.path("pid.paste"), encoding: .utf8) == "xyz\u{1B}[A<Enter>\n")
  }

  @Test func aPasteOverTheLimitIsReportedWithItsSize() throws {
    let pane = try TmuxPane { "env CHECK_PASTE_LIMIT=1000 " + TerminalInTmuxTests.checkedRun($0) }
    pane.waitFor("event: none")
    try Self.paste(String(repeating: "0123456789", count: 500), into: pane)
    pane.waitFor("event: paste too large: 5000 bytes")
    pane.send("k")
    pane.waitFor("event: key k")
  }

  @Test func withoutBracketsPastedTextArrivesAsKeys() throws {
    let pane = try TmuxPane { TerminalInTmuxTests.checkedRun($0) }
    pane.waitFor("event: none")
    try Self.paste("ab", into: pane, marked: false)
    pane.waitFor("event: key b")
  }

  /// Every way out turns bracketed paste off again: a shell's `cat -v` afterwards receives a
  /// paste as plain text, not wrapped in `ESC[200~ … ESC[201~`.
  @Test(arguments: ["q", "x", "TERM", "SEGV"])
  func everyWayOutTurnsBracketedPasteOff(ending: String) throws {
    let pane = try TmuxPane(width: 60) { directory in
      "sh -c '\(checkExecutable) \(directory)/pid; echo exit=$?; exec cat -v'"
    }
    pane.waitFor("event: none")
    switch ending {
    case "TERM", "SEGV":
      let pid = try #require(pane.checkProcess())
      kill(pid, ending == "TERM" ? SIGTERM : SIGSEGV)
    default:
      pane.send(ending)
    }
    pane.waitFor("exit=")
    try Self.paste("after\n", into: pane)
    pane.waitFor("after")
    #expect(!pane.screen().contains("200~"), "\(ending): \(pane.screen())")
  }
}
