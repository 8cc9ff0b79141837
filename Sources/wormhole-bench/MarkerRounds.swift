import Glibc

/// Times marker keystrokes on a dashboard's terminal, one round at a time: each round types the
/// marker and the round's number, and measures until the screen shows it. A marker never shown
/// counts as 5 s, so a hang is a figure, not a missing one; after three in a row the rest count
/// so too, without waiting for them.
///
/// The round's number follows the marker because a run of markers would be drawn by ncurses as
/// one and a repeat count (REP) when the field scrolls, and a repeating pattern scrolled by its
/// own period would leave the field's window as it was, so nothing would be drawn.
struct MarkerRounds {
  private var unseen = 0

  /// The seconds from typing round `round`'s marker into `pty` until the screen showed it.
  mutating func latency(ofRound round: Int, in pty: PseudoTerminal) -> Double {
    if unseen >= 3 { return 5 }
    defer { usleep(20_000) }
    let seen = pty.markers.count
    let sent = now()
    pty.type("☃\(round)")
    guard settle(seconds: 5, { pty.markers.count > seen }) else {
      unseen += 1
      return 5
    }
    unseen = 0
    return pty.markers[seen] - sent
  }
}
