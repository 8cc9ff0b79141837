import Foundation
import Glibc
import TestSupport
import Testing

/// Clusters whose width terminals disagree on, drawn by the real backend in tmux 3.3a: every
/// row of a box keeps its right border in its column, before and after the selection moves,
/// and Ctrl-L repaints what someone else wrote over the screen.
@Suite(.serialized, .hangLimit)
struct EmojiInTmuxTests {
  /// The box `terminal-backend-check` draws on `e`, as the terminal must show it: each
  /// cluster's stand-in (see CellText) takes exactly its two columns.
  static let expectedBox: [String] = {
    let rows = [
      ("a", "👨", "family"), ("b", "🏳 ", "rainbow"), ("c", "FR", "flag"), ("d", "1 ", "keycap"),
      ("e", "❤ ", "heart"), ("f", "👋", "wave"), ("g", "漢", "plain wide"),
    ]
    let inner = 28
    let body = rows.map { letter, standIn, name in
      let text = "\(letter) \(standIn) \(name)"
      return "│" + text + String(repeating: " ", count: inner - 5 - name.count) + "│"
    }
    let line = String(repeating: "─", count: inner)
    return ["┌" + line + "┐"] + body + ["└" + line + "┘"]
  }()

  /// The pane's rows 5 to 13, where the box is.
  static func box(_ pane: TmuxPane) -> [String] {
    let lines = pane.screen().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    return Array(lines.dropFirst(5).prefix(expectedBox.count))
  }

  @Test func rowsOfEmojiSequencesKeepTheirBorderAndLeaveNoDebris() throws {
    let pane = try TmuxPane(width: 40, height: 16) { TerminalInTmuxTests.checkedRun($0) }
    pane.waitFor("event: none")
    pane.send("e")
    pane.waitFor("event: emoji 0")
    #expect(Self.box(pane) == Self.expectedBox)
    // The selection walks every row: each frame rewrites two rows, which must land exactly.
    for step in 1...8 {
      pane.send("e")
      pane.waitFor("event: emoji \(step % 7)")
      #expect(Self.box(pane) == Self.expectedBox, "after \(step) moves")
    }
    // What the pane shows is what a full repaint shows: nothing left over. The repaint clears the
    // screen and writes it again, top down: under load tmux can show its event line before the
    // box's last rows have arrived, so the box is awaited (a wrong row never becomes right).
    pane.send("C-l")
    pane.waitFor("event: redrawn")
    _ = pane.waitUntil { Self.box(pane) == Self.expectedBox }
    #expect(Self.box(pane) == Self.expectedBox)
  }

  @Test func ctrlLRepaintsWhatSomeoneElseWroteOver() throws {
    let pane = try TmuxPane(width: 40, height: 16) { TerminalInTmuxTests.checkedRun($0) }
    pane.waitFor("event: none")
    pane.send("e")
    pane.waitFor("event: emoji 0")
    let tty = pane.format("#{pane_tty}")
    try pane.tmux(["run-shell", "printf '\\033[8;3Hgarbage from elsewhere\\033[3;1H\\033[K' > \(tty)"])
    pane.waitFor("garbage from elsewhere")
    #expect(!pane.screen().contains("size: 40x16"))
    pane.send("C-l")
    pane.waitFor("event: redrawn")
    #expect(!pane.screen().contains("garbage"))
    #expect(pane.screen().contains("漢字 wide colour"))
    #expect(pane.screen().contains("size: 40x16"))
    #expect(Self.box(pane) == Self.expectedBox)
  }
}
