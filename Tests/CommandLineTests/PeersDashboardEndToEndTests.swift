import Foundation
import Glibc
import TestSupport
import Testing

/// The peers' branch of the real dashboard in a real terminal (tmux, a server of its own), over
/// `peer run` processes: the operator sees an invitation with its decoded context and answers
/// it (`a`, then `x` for another), cancels a resource in flight (`C`) and disconnects a peer
/// (`X`); the inviter's and the others' output say what came of it. Waits are on the screen
/// and on output lines, never on time.
@Suite(.serialized, .hangLimit) struct PeersDashboardEndToEndTests {
  @Test func theOperatorAnswersInvitationsCancelsAResourceAndDisconnectsAPeer() throws {
    let peers = PeerVerbTests.PeerHome()
    let carol = try peers.peer("carol", ["--advertise", "--accept", "ask"])
    let dave = try peers.peer("dave", ["--browse", "--json"])
    let erin = try peers.peer("erin", ["--advertise", "--accept", "ask"])
    #expect(dave.command.waitFor("\"event\":\"found\",\"peer\":\"carol\"", inErrors: false))
    #expect(dave.command.waitFor("\"event\":\"found\",\"peer\":\"erin\"", inErrors: false))

    let pane = try TmuxPane(width: 120, height: 40) { _ in
      "env TERM=xterm-256color LANG=C.UTF-8 \(executablePath) --home \(peers.path)"
    }
    defer { pane.kill() }
    #expect(pane.waitFor("chat  3 peers, 0 connected"), "\(pane.screen())")

    // carol is invited with a context; the operator sees it decoded and accepts.
    let accepted = try RunningCommand(
      ["peer", "invite", "--from", "dave", "--to", "carol", "--context", #"{"game":"chess"}"#] + peers.home)
    #expect(pane.waitFor("◐ \(carol.label)"), "\(pane.screen())")
    // The peers are the tree's last rows, by name: carol, dave, erin.
    pane.send("G", "k", "k")
    #expect(pane.waitFor("from \(dave.label)  a accept · x decline"), "\(pane.screen())")
    #expect(
      pane.waitUntil { pane.screen().contains("context ") && pane.screen().contains("chess") },
      "\(pane.screen())")
    pane.send("a")
    let acceptedEnd = accepted.finish()
    #expect(
      acceptedEnd.status == 0 && acceptedEnd.output.contains("\(carol.label) connected"),
      "\(acceptedEnd.errors)")
    #expect(
      dave.command.waitFor("\"state\":\"connected\"", inErrors: false), "\(dave.command.currentOutput)")
    #expect(pane.waitFor("● \(carol.label)"), "\(pane.screen())")

    // erin is invited too; the operator declines.
    let declined = try RunningCommand(["peer", "invite", "--from", "dave", "--to", "erin"] + peers.home)
    #expect(pane.waitFor("◐ \(erin.label)"), "\(pane.screen())")
    pane.send("G")
    #expect(pane.waitFor("from \(dave.label)  a accept · x decline"), "\(pane.screen())")
    pane.send("x")
    let declinedEnd = declined.finish()
    #expect(declinedEnd.status == 3 && declinedEnd.errors.contains("declined"), "\(declinedEnd.errors)")
    #expect(
      dave.command.waitFor("\"state\":\"notConnected\",\"reason\":\"declined\"", inErrors: false),
      "\(dave.command.currentOutput)")

    // A resource from dave to carol, held in flight (carol stopped); the operator cancels it.
    let large = peers.path + "/large.bin"
    let descriptor = open(large, O_WRONLY | O_CREAT, 0o600)
    #expect(descriptor >= 0 && ftruncate(descriptor, 1 << 30) == 0)
    close(descriptor)
    #expect(kill(carol.pid, SIGSTOP) == 0)
    let sending = try RunningCommand(
      ["peer", "send-resource", "--from", "dave", "--to", "carol", large] + peers.home)
    pane.send("k")
    #expect(pane.waitFor("↑ large.bin → \(carol.label)"), "\(pane.screen())")
    #expect(pane.waitFor("[░░░░░░░░░░░░░░░░░░░░]  0%  0 B of "), "\(pane.screen())")
    pane.send("C")
    let sendingEnd = sending.finish()
    #expect(
      sendingEnd.status == 3 && sendingEnd.errors.contains("the resource was cancelled"),
      "\(sendingEnd.errors)")
    #expect(kill(carol.pid, SIGCONT) == 0)
    #expect(
      carol.command.waitFor("large.bin from \(dave.label) cancelled", inErrors: false),
      "\(carol.command.currentOutput.suffix(300))")

    // The operator disconnects dave: carol sees him leave, and the branch shows why.
    pane.send("X")
    #expect(
      carol.command.waitFor("state \(dave.label) notConnected (left the session)", inErrors: false),
      "\(carol.command.currentOutput.suffix(300))")
    pane.send("k")
    #expect(pane.waitFor("notConnected (left the session)"), "\(pane.screen())")
    #expect(pane.waitFor("chat  3 peers, 0 connected"), "\(pane.screen())")

    pane.send("q")
    #expect(pane.waitUntil { pane.isDead })
  }

  @Test func peerTrafficShowsInTheTrafficPaneWhenOnlyAGroupIsWatched() throws {
    let peers = PeerVerbTests.PeerHome()
    try FileManager.default.createDirectory(
      atPath: peers.path + "/AppGroup/g", withIntermediateDirectories: true)
    let host = try peers.peer("host", ["--advertise", "--accept", "always"])
    let guest = try peers.peer("guest", ["--browse"])
    #expect(guest.command.waitFor("found \(host.label)", inErrors: false))
    #expect(try peers.peer(["invite", "--from", "guest", "--to", "host"]).status == 0)
    let pane = try TmuxPane(width: 140, height: 40) { _ in
      "env TERM=xterm-256color LANG=C.UTF-8 \(executablePath) --home \(peers.path) --group g"
    }
    defer { pane.kill() }
    #expect(pane.waitFor("chat  2 peers, 2 connected"), "\(pane.screen())")
    let sent = try peers.peer(["send", "--from", "guest", "--to", "host", "--mode", "reliable", #"{"x":1}"#])
    #expect(sent.status == 0, "\(sent.errors)")
    // The traffic pane: a reliable message from guest to host, journaled on both sides.
    #expect(
      pane.waitUntil {
        pane.screen().split(separator: "\n").contains {
          $0.contains("reliable") && $0.contains("\(guest.label) -> \(host.label)")
        }
      }, "\(pane.screen())")
    pane.send("q")
    #expect(pane.waitUntil { pane.isDead })
  }
}
