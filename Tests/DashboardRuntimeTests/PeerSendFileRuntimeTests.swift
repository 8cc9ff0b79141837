import ArchivedValues
import Dashboard
import DashboardRuntime
import Glibc
import MailboxModel
import MailboxWatcher
import TestSupport
import Testing

private func run(_ effect: DashboardEffect) -> EffectResult {
  EffectJob(effect: effect, model: ModelState()).run(with: MailboxOperations(), pairs: DevicePairOperations())
}

/// `:peer-send … @FILE`: the file is read when the send runs, as `peer send @FILE` reads it.
@Suite(.serialized) struct PeerSendFileRuntimeTests {
  @Test func aFileOverTheLimitIsRefusedSayingTheLimitAndAFIFOIsNotWaitedOn() throws {
    let home = TemporaryDirectory(prefix: "wormhole-peersend")
    defer { home.remove() }
    let big = home.path + "/big.bin"
    let descriptor = open(big, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
    #expect(descriptor >= 0)
    #expect(ftruncate(descriptor, off_t(PeerDataSend.maximumFileBytes + 1)) == 0)
    close(descriptor)
    let send = PeerDataSend(
      controlSocketPath: home.path + "/none.sock", peer: "lamp#1a2b", targets: "bob", mode: "reliable",
      data: [],
      file: big)
    let refused = run(.peerSend(send))
    #expect(
      refused.failure
        == "the data file \(DisplayText.field(big)) is 16777217 bytes; a peer sends at most 16777216 bytes (16 MiB) at a time: send it as a resource (peer send-resource)",
      "\(refused)")

    let fifo = home.path + "/fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    var piped = send
    piped.file = fifo
    #expect(run(.peerSend(piped)).failure?.hasSuffix("is not a regular file") == true)
  }

  @Test func aFilesBytesReachThePeerWhichAnswersForThem() throws {
    let home = TemporaryDirectory(prefix: "wormhole-peersend")
    defer { home.remove() }
    home.write("notes.bin", "hello, bob")
    let peer = try PeerProcess(name: "alice", home: home.path)
    defer { peer.stop() }
    let alice = try #require(PeersSource.snapshots(home: home.path).first)
    let send = PeerDataSend(
      controlSocketPath: alice.controlSocketPath, peer: alice.label, targets: "bob", mode: "reliable",
      data: [],
      file: home.path + "/notes.bin")
    // bob is not connected: alice answers so, for the file's bytes it was sent.
    let result = run(.peerSend(send))
    #expect(result.failure?.contains("not connected") == true, "\(result)")
    let missing = run(
      .peerSend(
        PeerDataSend(
          controlSocketPath: alice.controlSocketPath, peer: alice.label, targets: "bob", mode: "reliable",
          data: [],
          file: home.path + "/missing.bin")))
    #expect(missing.failure?.hasPrefix("cannot open the data file") == true, "\(missing)")
  }
}
