import Foundation
import Glibc
import Testing

/// `peer disconnect` and `peer cancel`, each peer its own process on a hermetic home: the peer
/// that leaves is seen `notConnected (left the session)` by the others, and a resource in flight
/// cancelled by either side is seen cancelled by the other. Waits are on output lines; a
/// transfer is held in flight by stopping (SIGSTOP) the side that would move it on.
@Suite struct PeerControlVerbTests {
  @Test func aPeerThatDisconnectsIsSeenLeftByTheOthers() throws {
    let peers = PeerVerbTests.PeerHome()
    let host = try peers.peer("host", ["--advertise", "--accept", "always", "--json"])
    let guest = try peers.peer("guest", ["--browse"])
    let other = try peers.peer("other", ["--browse", "--advertise", "--accept", "always"])
    #expect(guest.command.waitFor("found \(host.label)", inErrors: false), "\(guest.command.currentOutput)")
    #expect(other.command.waitFor("found \(host.label)", inErrors: false))
    #expect(try peers.peer(["invite", "--from", "guest", "--to", "host"]).status == 0)
    #expect(try peers.peer(["invite", "--from", "other", "--to", "host"]).status == 0)
    #expect(guest.command.waitFor("state \(other.label) connected", inErrors: false))

    let left = try peers.peer(["disconnect", "--name", "host"])
    #expect(left.status == 0 && left.output.contains("left the session"), "\(left.errors)")
    #expect(left.output.contains(guest.label) && left.output.contains(other.label), "\(left.output)")
    for peer in [guest, other] {
      #expect(
        peer.command.waitFor("state \(host.label) notConnected (left the session)", inErrors: false),
        "\(peer.command.currentOutput)")
    }
    // The mesh went through host: guest and other are separated from each other too.
    #expect(guest.command.waitFor("state \(other.label) notConnected", inErrors: false))
    #expect(
      host.command.waitFor(
        "\"state\":\"notConnected\",\"reason\":\"this peer left the session\"", inErrors: false),
      "\(host.command.currentOutput)")
    #expect(!(try peers.peer(["list"]).output.contains("connected: ")))
    // It still runs and may be invited again.
    #expect(try peers.peer(["invite", "--from", "guest", "--to", "host"]).status == 0)

    let nobody = try peers.peer(["disconnect", "--name", "nobody"])
    #expect(nobody.status == 3 && nobody.errors.contains("no running peer"), "\(nobody.errors)")
    let usage = try peers.peer(["disconnect"])
    #expect(usage.status == 2 && usage.errors.contains("needs --name NAME"), "\(usage.errors)")
  }

  /// A RESOURCE not written as `peer run` writes one is a usage error that states the form, before
  /// any peer is asked (none runs here).
  @Test(arguments: ["zz/1", "ffff", "ffff/", "/1", "FFFF/1", "ffff/1/2", "ffff/x", "ffff/-1"])
  func aMalformedResourceIsAUsageErrorThatStatesTheForm(_ resource: String) throws {
    let peers = PeerVerbTests.PeerHome()
    let result = try peers.peer(["cancel", "--name", "sender", resource])
    #expect(result.status == 2, "\(result.errors)")
    #expect(result.errors.contains("SENDERHEX/NUMBER"), "\(result.errors)")
  }

  @Test func aResourceInFlightIsCancelledBySenderOrReceiverAndTheOtherSideSeesIt() throws {
    let peers = PeerVerbTests.PeerHome()
    let receiver = try peers.peer("receiver", ["--advertise", "--accept", "always"])
    let sender = try peers.peer("sender", ["--browse"])
    #expect(sender.command.waitFor("found \(receiver.label)", inErrors: false))
    #expect(try peers.peer(["invite", "--from", "sender", "--to", "receiver"]).status == 0)
    let large = peers.path + "/large.bin"
    let descriptor = open(large, O_WRONLY | O_CREAT, 0o600)
    #expect(descriptor >= 0 && ftruncate(descriptor, 1 << 30) == 0)
    close(descriptor)

    // The sender cancels: the receiver, stopped, acknowledges nothing, so it stays in flight.
    #expect(kill(receiver.pid, SIGSTOP) == 0)
    let first = try RunningCommand(
      ["peer", "send-resource", "--from", "sender", "--to", "receiver", large] + peers.home)
    #expect(sender.command.waitFor("large.bin to \(receiver.label) started", inErrors: false))
    let id = try #require(
      Self.resourceID(in: sender.command.currentOutput, name: "large.bin", word: "started"))
    let wrong = try peers.peer(["cancel", "--name", "sender", "ffff/9"])
    #expect(wrong.status == 3 && wrong.errors.contains("(\(id) are)"), "\(wrong.errors)")
    let cancelled = try peers.peer(["cancel", "--name", "sender", id])
    #expect(cancelled.status == 0, "\(cancelled.errors)")
    #expect(cancelled.output.contains("cancelled resource \(id) large.bin to \(receiver.label)"))
    let ended = first.finish()
    #expect(ended.status == 3 && ended.errors.contains("the resource was cancelled"), "\(ended.errors)")
    #expect(kill(receiver.pid, SIGCONT) == 0)
    #expect(
      receiver.command.waitFor("large.bin from \(sender.label) cancelled", inErrors: false),
      "\(receiver.command.currentOutput.suffix(400))")
    #expect(try peers.peer(["cancel", "--name", "sender", id]).status == 3)

    // The receiver cancels: the sender stopped once some of it arrived.
    let second = try RunningCommand(
      ["peer", "send-resource", "--from", "sender", "--to", "receiver", large, "--name", "again"] + peers.home
    )
    #expect(receiver.command.waitFor(" again from \(sender.label) progress", inErrors: false))
    #expect(kill(sender.pid, SIGSTOP) == 0)
    let secondID = try #require(
      Self.resourceID(in: receiver.command.currentOutput, name: "again", word: "progress"))
    let byReceiver = try peers.peer(["cancel", "--name", "receiver", secondID])
    #expect(kill(sender.pid, SIGCONT) == 0)
    #expect(byReceiver.status == 0, "\(byReceiver.errors)")
    #expect(
      byReceiver.output.contains("cancelled resource \(secondID) again from \(sender.label)"),
      "\(byReceiver.output)")
    let secondEnded = second.finish()
    #expect(
      secondEnded.status == 3 && secondEnded.errors.contains("cancelled by \(receiver.label)"),
      "\(secondEnded.errors)")
    #expect(sender.command.waitFor("again to \(receiver.label) cancelled ", inErrors: false))
    let line = sender.command.currentOutput.split(separator: "\n").last { $0.contains(" again to ") } ?? ""
    #expect(line.hasSuffix(" by the peer"), "\(line)")
  }

  /// The id of the last line of resource `name` with `word` (`resource ID NAME to|from PEER WORD …`).
  static func resourceID(in output: String, name: String, word: String) -> String? {
    let line = output.split(separator: "\n").last {
      $0.hasPrefix("resource ") && $0.contains(" \(name) ") && $0.contains(" \(word) ")
    }
    return line?.split(separator: " ").dropFirst().first.map(String.init)
  }
}
