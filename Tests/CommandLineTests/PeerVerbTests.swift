import Foundation
import Glibc
import Testing

/// The `peer` verbs, each peer its own process on a hermetic home: rules at the boundary,
/// discovery and loss (SIGKILL), invitations, data, resources and a sender killed mid-transfer.
/// Waits are on output lines, never on time.
@Suite struct PeerVerbTests {
  final class PeerHome {
    let directory = TemporaryDirectory()
    var path: String { directory.path }
    var home: [String] { ["--home", path] }
    private var running: [RunningCommand] = []

    deinit {
      for command in running {
        command.interrupt()
        _ = command.finish(seconds: 10)
      }
      directory.remove()
    }

    /// A running `peer run`, its label (`NAME#xxxx`) and pid read from its start-up line.
    func peer(_ name: String, _ extra: [String], service: String = "chat") throws -> (
      command: RunningCommand, label: String, pid: Int32
    ) {
      let command = try RunningCommand(["peer", "run", "--service", service, "--name", name] + extra + home)
      running.append(command)
      #expect(command.waitFor("is running (pid "), "\(command.currentErrors)")
      let errors = command.currentErrors
      let label =
        errors.components(separatedBy: "peer ").dropFirst().first?.components(separatedBy: " of service")
        .first ?? ""
      let pid =
        Int32(errors.components(separatedBy: "(pid ").dropFirst().first?.prefix { $0.isNumber } ?? "") ?? 0
      return (command, label, pid)
    }

    func peer(_ arguments: [String]) throws -> CommandResult { try run(["peer"] + arguments + home) }
  }

  @Test func rulesAreCheckedAtTheBoundary() throws {
    let peers = PeerHome()
    let cases: [([String], String)] = [
      (["run", "--service", "Chat", "--name", "a"], "only ASCII lowercase letters, digits and hyphens"),
      (["run", "--service", "my--chat", "--name", "a"], "refused"),
      (["run", "--service", "abcdefghijklmnop", "--name", "a"], "at most 15"),
      (["run", "--service", "12345", "--name", "a"], "refused"),
      (["run", "--service", "chat", "--name", ""], "refused"),
      (["run", "--service", "chat", "--name", String(repeating: "a", count: 62) + "é"], "63"),
      (["run", "--service", "chat", "--name", "a", "--accept", "maybe"], "always, never or ask"),
      (["run", "--service", "chat", "--name", "a", "--info", "novalue"], "KEY=VALUE"),
      (["send", "--from", "a", "--to", "", "--mode", "reliable", "1"], "refused"),
      (["send", "--from", "a", "--to", "b", "--mode", "sometimes", "1"], "reliable"),
      (["send", "--from", "a", "--to", "b", "--mode", "reliable", "{not json"], "DATA"),
      (["invite", "--from", String(repeating: "x", count: 64), "--to", "b"], "refused"),
      (["answer", "--from", "a", "--to", "b", "maybe"], "accept or decline"),
    ]
    for (arguments, rule) in cases {
      let result = try peers.peer(arguments)
      #expect(result.status == 2, "\(arguments): \(result.errors)")
      #expect(result.errors.contains(rule), "\(arguments): \(result.errors)")
    }
    // No peer was started by any of them.
    #expect(try peers.peer(["list"]).output.isEmpty)
  }

  @Test func browsersFindAdvertisersAndLoseThemWithinASecondOfSIGKILL() throws {
    let peers = PeerHome()
    let desk = try peers.peer("desk", ["--advertise", "--info", "room=2"])
    let watch = try peers.peer("watch", ["--browse", "--json"])
    #expect(
      watch.command.waitFor("\"event\":\"found\",\"peer\":\"desk\"", inErrors: false),
      "\(watch.command.currentOutput)")
    #expect(watch.command.currentOutput.contains("\"info\":{\"room\":\"2\"}"))
    let list = try peers.peer(["list"])
    #expect(list.lines.contains("chat \(desk.label) pid \(desk.pid) advertising"), "\(list.output)")
    let killed = Date()
    #expect(kill(desk.pid, SIGKILL) == 0)
    #expect(
      watch.command.waitFor("\"event\":\"lost\",\"peer\":\"desk\"", inErrors: false),
      "\(watch.command.currentOutput)")
    let seconds = Date().timeIntervalSince(killed)
    #expect(seconds < 1, "lost after \(seconds) s")
    // Its stale files count for nothing: it is not listed.
    #expect(!(try peers.peer(["list"]).output.contains("desk")))
    // One that stops (SIGINT) is lost too.
    let lamp = try peers.peer("lamp", ["--advertise"])
    #expect(watch.command.waitFor("\"event\":\"found\",\"peer\":\"lamp\"", inErrors: false))
    // A peer that starts sweeps the killed one's stale files away (its journal folder stays).
    let stale = try FileManager.default.contentsOfDirectory(atPath: peers.path + "/peers/chat")
    #expect(stale.filter { $0.hasSuffix(".advert") }.count == 1, "\(stale)")  // lamp's
    #expect(stale.filter { $0.hasSuffix(".lock") }.count == 2, "\(stale)")  // watch's and lamp's
    #expect(stale.filter { !$0.contains(".") }.count == 3, "\(stale)")  // every peer's folder
    lamp.command.interrupt()
    #expect(lamp.command.finish().status == 0)
    #expect(watch.command.waitFor("\"event\":\"lost\",\"peer\":\"lamp\"", inErrors: false))
  }

  @Test func invitationsAreAcceptedDeclinedTimedOutAndAnswered() throws {
    let peers = PeerHome()
    let yes = try peers.peer("yes", ["--advertise", "--accept", "always"])
    _ = try peers.peer("no", ["--advertise", "--accept", "never"])
    let later = try peers.peer("later", ["--advertise", "--accept", "ask"])
    let asker = try peers.peer("asker", ["--advertise", "--accept", "ask", "--json"])
    let guest = try peers.peer("guest", ["--browse"])
    for name in ["yes", "no", "later", "asker"] {
      #expect(guest.command.waitFor("found \(name)#", inErrors: false), "\(guest.command.currentOutput)")
    }
    let accepted = try peers.peer([
      "invite", "--from", "guest", "--to", "yes", "--context", "{\"game\":\"chess\"}",
    ])
    #expect(accepted.status == 0 && accepted.output.contains("\(yes.label) connected"), "\(accepted.errors)")
    // The invitee saw the context decoded from its archive.
    #expect(yes.command.waitFor("invitation 1 from \(guest.label)", inErrors: false))
    #expect(yes.command.currentOutput.contains("chess"), "\(yes.command.currentOutput)")
    #expect(yes.command.waitFor("state \(guest.label) connected", inErrors: false))
    let declined = try peers.peer(["invite", "--from", "guest", "--to", "no"])
    #expect(
      declined.status == 3 && declined.errors.contains("is not connected: declined"), "\(declined.errors)")
    let timedOut = try peers.peer(["invite", "--from", "guest", "--to", "later", "--timeout", "0.5"])
    #expect(timedOut.status == 3 && timedOut.errors.contains("timed out"), "\(timedOut.errors)")
    #expect(later.command.waitFor("(timed out)", inErrors: false), "\(later.command.currentOutput)")
    // Under ask, an operator answers with peer answer while the inviter waits.
    let waiting = try RunningCommand(
      ["peer", "invite", "--from", "guest", "--to", "asker", "--context", "[1,2]"] + peers.home)
    #expect(asker.command.waitFor("\"event\":\"invitation\",\"peer\":\"guest\"", inErrors: false))
    #expect(asker.command.currentOutput.contains("\"context\":[1,2]"), "\(asker.command.currentOutput)")
    let answered = try peers.peer(["answer", "--from", "asker", "--to", "guest", "accept"])
    #expect(answered.status == 0, "\(answered.errors)")
    let invited = waiting.finish()
    #expect(invited.status == 0 && invited.output.contains("\(asker.label) connected"), "\(invited.errors)")
    let none = try peers.peer(["answer", "--from", "asker", "--to", "guest", "decline"])
    #expect(none.status == 3 && none.errors.contains("no invitation"), "\(none.errors)")
  }

  @Test func reliableDataArrivesInOrderAndAPeerNotConnectedIsNamed() throws {
    let peers = PeerHome()
    let host = try peers.peer("host", ["--advertise", "--accept", "always"])
    let other = try peers.peer("other", ["--advertise", "--accept", "always"])
    let guest = try peers.peer("guest", ["--browse"])
    #expect(guest.command.waitFor("found \(host.label)", inErrors: false))
    #expect(guest.command.waitFor("found \(other.label)", inErrors: false))
    #expect(try peers.peer(["invite", "--from", "guest", "--to", "host"]).status == 0)
    for index in 0..<10 {
      let sent = try peers.peer([
        "send", "--from", "guest", "--to", "host", "--mode", "reliable", "{\"n\":\(index)}",
      ])
      #expect(sent.status == 0, "\(sent.errors)")
    }
    #expect(host.command.waitFor("{\"n\":9}", inErrors: false))
    let lines = host.command.currentOutput.split(separator: "\n").map(String.init).filter {
      $0.hasPrefix("data from")
    }
    #expect(
      lines
        == (0..<10).map {
          "data from \(guest.label) reliable \("{\"n\":\($0)}".utf8.count) bytes: {\"n\":\($0)}"
        })
    let refused = try peers.peer(["send", "--from", "guest", "--to", "host,other", "--mode", "reliable", "1"])
    #expect(
      refused.status == 3 && refused.errors.contains("not connected: \(other.label)"), "\(refused.errors)")
    let unknown = try peers.peer(["send", "--from", "guest", "--to", "nobody", "--mode", "reliable", "1"])
    #expect(unknown.status == 3 && unknown.errors.contains("not connected: nobody"), "\(unknown.errors)")
    let absent = try peers.peer(["send", "--from", "ghost", "--to", "host", "--mode", "reliable", "1"])
    #expect(absent.status == 3 && absent.errors.contains("no running peer ghost"), "\(absent.errors)")
  }

  @Test func aNameSharedByRunningPeersIsAmbiguousUntilPickedById() throws {
    let peers = PeerHome()
    let first = try peers.peer("twin", ["--advertise", "--accept", "always"])
    let second = try peers.peer("twin", ["--browse"])
    #expect(second.command.waitFor("found \(first.label)", inErrors: false))
    let ambiguous = try peers.peer(["invite", "--from", "twin", "--to", "twin"])
    #expect(ambiguous.status == 2 && ambiguous.errors.contains("ambiguous"), "\(ambiguous.errors)")
    #expect(ambiguous.errors.contains(first.label) && ambiguous.errors.contains(second.label))
    let picked = try peers.peer(["invite", "--from", second.label, "--to", first.label])
    #expect(picked.status == 0, "\(picked.errors)")
    let list = try peers.peer(["list", "--json"])
    let objects = list.lines.compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(objects.count == 2 && objects.allSatisfy { $0["name"] as? String == "twin" }, "\(list.output)")
    #expect(objects.allSatisfy { ($0["connected"] as? [String])?.count == 1 }, "\(list.output)")
    #expect(Set(objects.compactMap { $0["advertising"] as? Bool }) == [true, false])
  }

  @Test func aResourceShowsProgressOnBothSidesAndFailsWhenItsSenderIsKilled() throws {
    let peers = PeerHome()
    let receiver = try peers.peer("receiver", ["--advertise", "--accept", "always"])
    let sender = try peers.peer("sender", ["--browse"])
    #expect(sender.command.waitFor("found \(receiver.label)", inErrors: false))
    #expect(try peers.peer(["invite", "--from", "sender", "--to", "receiver"]).status == 0)
    let small = peers.path + "/notes.txt"
    let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    #expect(FileManager.default.createFile(atPath: small, contents: bytes))
    let sent = try peers.peer([
      "send-resource", "--from", "sender", "--to", "receiver", small, "--name", "notes",
    ])
    #expect(sent.status == 0 && sent.output.contains("(200000 bytes)"), "\(sent.errors)")
    #expect(
      receiver.command.waitFor(
        " notes from \(sender.label) finished 200000/200000 (100%) at ", inErrors: false))
    #expect(receiver.command.currentOutput.contains("notes from \(sender.label) progress 65536/200000 (32%)"))
    #expect(sender.command.waitFor("notes to \(receiver.label) finished", inErrors: false))
    #expect(sender.command.currentOutput.contains("notes to \(receiver.label) progress"))
    let line = receiver.command.currentOutput.split(separator: "\n").first { $0.contains("finished") } ?? ""
    let location = line.components(separatedBy: " at ").last ?? ""
    #expect(FileManager.default.contents(atPath: location) == bytes, "\(line)")
    // A large (sparse) resource, its sender killed once the receiver has some of it.
    let large = peers.path + "/large.bin"
    let descriptor = open(large, O_WRONLY | O_CREAT, 0o600)
    #expect(descriptor >= 0 && ftruncate(descriptor, 1 << 30) == 0)
    close(descriptor)
    let sending = try RunningCommand(
      ["peer", "send-resource", "--from", "sender", "--to", "receiver", large] + peers.home)
    #expect(receiver.command.waitFor(" large.bin from \(sender.label) progress", inErrors: false))
    #expect(kill(sender.pid, SIGKILL) == 0)
    #expect(
      receiver.command.waitFor(" large.bin from \(sender.label) failed", inErrors: false),
      "\(receiver.command.currentOutput.suffix(300))")
    #expect(receiver.command.currentOutput.contains("went away"))
    #expect(receiver.command.waitFor("state \(sender.label) notConnected (hung up)", inErrors: false))
    #expect(sending.finish().status == 3)
    // The partial resource was discarded.
    let resources = try FileManager.default.contentsOfDirectory(atPath: peers.path + "/peers/chat")
      .filter { !$0.contains(".") }
      .flatMap {
        (try? FileManager.default.contentsOfDirectory(atPath: peers.path + "/peers/chat/\($0)/resources"))
          ?? []
      }
    #expect(!resources.contains { $0.hasSuffix(".part") }, "\(resources)")
  }
}
