import DashboardRuntime
import DevicePairing
import Dispatch
import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import MailboxWatcher
import PeerSession
import TestSupport
import Testing

@testable import Dashboard

/// What the peers' source reads from real peers of this process, and the effects `X` and `C`
/// run: an invitation's archived context decoded, a peer that leaves seen `left the session` by
/// the others, resources in flight and the peers that went away read from `status`.
@Suite struct PeerControlEffectTests {
  private func peer(
    _ name: String, home: String, policy: InvitationPolicy, advertise: Bool, browse: Bool,
    events: Collector<PeerEvent>
  ) throws -> LocalPeer {
    let peer = try LocalPeer(name: try PeerName(name), service: try ServiceType("chat"), home: home)
    peer.setEventHandler { events.append($0) }
    try peer.start(advertising: advertise ? DiscoveryInfo() : nil, policy: policy, browsing: browse)
    return peer
  }

  private func found(_ peer: LocalPeer, in events: Collector<PeerEvent>) -> Bool {
    !events.wait {
      $0.contains {
        if case .found(let found, _) = $0 { return found == peer.identity } else { return false }
      }
    }.isEmpty
  }

  @Test func theInvitedPeersStatusCarriesTheContextDecoded() throws {
    let home = TemporaryDirectory(prefix: "wormhole-peers")
    defer { home.remove() }
    let carolEvents = Collector<PeerEvent>()
    let daveEvents = Collector<PeerEvent>()
    let carol = try peer(
      "carol", home: home.path, policy: .ask, advertise: true, browse: false, events: carolEvents)
    let dave = try peer(
      "dave", home: home.path, policy: .always, advertise: false, browse: true, events: daveEvents)
    defer { [carol, dave].forEach { $0.stop() } }
    #expect(found(carol, in: daveEvents))
    let context = try KeyedArchiveEncoder().encodeBytes(.string("join the kitchen"))
    let answers = Collector<String>()
    DispatchQueue.global().async {
      let answer = dave.perform(
        PeerControlMessage([Array("invite".utf8), Array("carol".utf8), context, Array("20".utf8)]))
      answers.append(answer.text(0))
    }
    #expect(!carolEvents.wait { $0.contains { if case .invitation = $0 { true } else { false } } }.isEmpty)
    let snapshot = try #require(PeersSource.snapshots(home: home.path).first { $0.name == "carol" })
    #expect(snapshot.invitations.map(\.peer) == [dave.identity.description])
    #expect(
      snapshot.invitations.first?.context?.contains("join the kitchen") == true, "\(snapshot.invitations)")
    // Declined, so that dave's request ends.
    #expect(carol.perform(PeerControlMessage(text: ["answer", "dave", "decline"])).text(0) == "ok")
    #expect(answers.wait(for: 1) == ["error"])
  }

  @Test func aPeerDisconnectedThroughTheEffectIsSeenLeftByTheOthers() throws {
    let home = TemporaryDirectory(prefix: "wormhole-peers")
    defer { home.remove() }
    let carolEvents = Collector<PeerEvent>()
    let daveEvents = Collector<PeerEvent>()
    let carol = try peer(
      "carol", home: home.path, policy: .always, advertise: true, browse: false, events: carolEvents)
    let dave = try peer(
      "dave", home: home.path, policy: .always, advertise: false, browse: true, events: daveEvents)
    defer { [carol, dave].forEach { $0.stop() } }
    #expect(found(carol, in: daveEvents))
    #expect(dave.perform(PeerControlMessage(text: ["invite", "carol", "", "20"])).text(0) == "ok")
    let before = PeersSource.snapshots(home: home.path)
    let snapshot = try #require(before.first { $0.name == "carol" })
    #expect(snapshot.connected == [dave.identity.description])

    let command = PeerCommand(
      controlSocketPath: snapshot.controlSocketPath, peer: snapshot.label, request: .disconnect)
    let result = EffectJob(effect: .peerCommand(command), model: ModelState()).run(with: MailboxOperations())
    #expect(result.failure == nil, "\(result)")
    #expect(result.detail?.contains("left the session; \(dave.identity)") == true, "\(result)")
    let left = daveEvents.wait {
      $0.contains {
        if case .stateChanged(let peer, .notConnected, .left) = $0 { peer == carol.identity } else { false }
      }
    }
    #expect(!left.isEmpty, "\(daveEvents.values)")
    let after = PeersSource.snapshots(home: home.path)
    let daveNow = try #require(after.first { $0.name == "dave" })
    let carolNow = try #require(after.first { $0.name == "carol" })
    #expect(daveNow.connected.isEmpty && carolNow.connected.isEmpty)
    #expect(
      daveNow.departures == [
        PeerSnapshot.Departure(peer: carol.identity.description, reason: "left the session")
      ])
    #expect(
      carolNow.departures == [
        PeerSnapshot.Departure(peer: dave.identity.description, reason: "this peer left the session")
      ])

    // Invited again, the departure is gone.
    #expect(dave.perform(PeerControlMessage(text: ["invite", "carol", "", "20"])).text(0) == "ok")
    #expect(PeersSource.snapshots(home: home.path).allSatisfy { $0.departures.isEmpty })

    // A cancel of nothing in flight fails with the peer's reason.
    let cancel = PeerCommand(
      controlSocketPath: snapshot.controlSocketPath, peer: snapshot.label,
      request: .cancel(id: "1/1", name: "r"))
    let refused = EffectJob(effect: .peerCommand(cancel), model: ModelState()).run(with: MailboxOperations())
    #expect(refused.failure?.contains("in flight (none is)") == true, "\(refused)")
  }

  @Test func aStatusReadsResourcesAndDeparturesAndSkipsWhatDoesNotRead() {
    let name = Array("notes\tv2.bin".utf8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    var snapshot = PeerSnapshot(service: "chat", name: "carol", id: 0xca01)
    PeersSource.apply(
      status: [
        "peer carol#ca01",
        "resource ca01/1\tsending\t400000\t1000000\tdave#da0e\t\(name)",
        "resource 9/2\treceiving\t0\t7\ttab\tname#0009\t41",
        "resource 9/3\tsideways\t0\t7\tx#0009\t41",
        "resource 9/4\treceiving\tmany\t7\tx#0009\t41",
        "resource 9/5\treceiving\t0\t7\tx#0009\tzz",
        "left dave#da0e\tleft the session",
        "left odd\tname#0001\thung up",
        "left nothing",
      ].joined(separator: "\n"),
      to: &snapshot)
    #expect(
      snapshot.resources == [
        PeerSnapshot.Resource(
          id: "ca01/1", name: "notes\tv2.bin", isSending: true, peer: "dave#da0e", bytes: 400_000,
          total: 1_000_000),
        PeerSnapshot.Resource(
          id: "9/2", name: "A", isSending: false, peer: "tab\tname#0009", bytes: 0, total: 7),
      ])
    #expect(snapshot.resources.first?.fraction == 0.4)
    #expect(
      snapshot.departures == [
        PeerSnapshot.Departure(peer: "dave#da0e", reason: "left the session"),
        PeerSnapshot.Departure(peer: "odd\tname#0001", reason: "hung up"),
      ])
  }
}

/// A peer process killed with SIGKILL leaves the peers' branch at once: its pidfd says so, not
/// the next read (here a minute away).
@Suite struct PeerExitTests {
  @Test func aKilledPeerGoesAtOnceNotAtTheNextRead() throws {
    let home = TemporaryDirectory(prefix: "wormhole-peers")
    defer { home.remove() }
    let peer = try PeerProcess(name: "lamp", home: home.path)
    defer { peer.stop() }
    let posts = Collector<[PeerSnapshot]>()
    let source = PeersSource(home: home.path, interval: .seconds(60))
    source.start { message in
      if case .peers(let peers) = message { posts.append(peers) }
    }
    defer { source.cancel() }
    let shown = posts.wait { $0.last?.map(\.name) == ["lamp"] }
    try #require(shown.last?.map(\.name) == ["lamp"], "\(shown)")
    let killed = ContinuousClock.now
    #expect(kill(peer.pid, SIGKILL) == 0)
    let after = posts.wait(seconds: 20) { $0.last?.isEmpty == true }
    let elapsed = ContinuousClock.now - killed
    #expect(after.last?.isEmpty == true, "\(after)")
    #expect(elapsed < .seconds(10), "took \(elapsed): the next read, not the pidfd")
  }
}
