import ArchivedValues
import Dashboard
import DashboardRuntime
import DevicePairing
import Foundation
import Glibc
import MailboxModel
import MailboxWatcher
import PeerSession
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

  /// A file of 1 MiB sent from a peer through the effect reaches the connected peer byte for
  /// byte, in one reliable message.
  @Test func aFilesBytesArriveWholeAtTheConnectedPeer() throws {
    let home = TemporaryDirectory(prefix: "wormhole-peersend")
    defer { home.remove() }
    let carolEvents = Collector<PeerEvent>()
    let daveEvents = Collector<PeerEvent>()
    let carol = try LocalPeer(name: try PeerName("carol"), service: try ServiceType("chat"), home: home.path)
    carol.setEventHandler { carolEvents.append($0) }
    try carol.start(advertising: DiscoveryInfo(), policy: .always, browsing: false)
    let dave = try LocalPeer(name: try PeerName("dave"), service: try ServiceType("chat"), home: home.path)
    dave.setEventHandler { daveEvents.append($0) }
    try dave.start(advertising: nil, policy: .always, browsing: true)
    defer { [carol, dave].forEach { $0.stop() } }
    let carolID = carol.identity
    let isCarol: @Sendable (PeerEvent) -> Bool = { event in
      if case .found(let peer, _) = event { peer == carolID } else { false }
    }
    #expect(daveEvents.wait { $0.contains(where: isCarol) }.contains(where: isCarol))
    #expect(dave.perform(PeerControlMessage(text: ["invite", "carol", "", "20"])).text(0) == "ok")

    let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
    let path = home.path + "/notes.bin"
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    let snapshot = try #require(PeersSource.snapshots(home: home.path).first { $0.name == "dave" })
    let result = run(
      .peerSend(
        PeerDataSend(
          controlSocketPath: snapshot.controlSocketPath, peer: snapshot.label, targets: "carol",
          mode: "reliable", data: [], file: path)))
    #expect(result.failure == nil, "\(result)")
    #expect(result.detail?.hasPrefix("sent 1048576 bytes reliable to carol#") == true, "\(result)")
    let received = carolEvents.wait {
      $0.contains { if case .data = $0 { true } else { false } }
    }
    let data = received.compactMap { event -> [UInt8]? in
      if case .data(let data, _, _) = event { return data } else { return nil }
    }
    #expect(data.count == 1 && data.first == bytes, "\(data.map(\.count))")
  }
}
