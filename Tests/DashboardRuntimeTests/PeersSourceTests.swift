import DashboardRuntime
import DevicePairing
import Dispatch
import KeyedArchive
import MailboxModel
import MailboxWatcher
import PeerSession
import TestSupport
import Testing

@testable import Dashboard

/// The peers' branch over real peers of this process (the local link under a hermetic home):
/// a pending invitation shows on the invited peer, and `a` in the dashboard accepts it through
/// the peer's control socket.
@Suite struct PeersSourceTests {
  /// A running peer of `chat`, its events collected into `events`.
  private func peer(
    _ name: String, home: String, policy: InvitationPolicy, info: [String: String]?, browse: Bool,
    events: Collector<PeerEvent>
  ) throws -> LocalPeer {
    let peer = try LocalPeer(name: try PeerName(name), service: try ServiceType("chat"), home: home)
    peer.setEventHandler { events.append($0) }
    try peer.start(advertising: try info.map { try DiscoveryInfo($0) }, policy: policy, browsing: browse)
    return peer
  }

  /// dave invites carol once he has found her (off the test's thread: the invitation waits for
  /// its answer); the answer's status and text go to the collector returned.
  private func invite(from dave: LocalPeer, events: Collector<PeerEvent>, to carol: LocalPeer) -> Collector<
    String
  > {
    let answers = Collector<String>()
    let found = events.wait {
      $0.contains { if case .found(let peer, _) = $0 { return peer == carol.identity } else { return false } }
    }
    #expect(!found.isEmpty)
    DispatchQueue.global().async {
      let answer = dave.perform(PeerControlMessage(text: ["invite", "carol", "", "20"]))
      answers.append(answer.text(0) + " " + answer.text(1) + answer.text(2))
    }
    return answers
  }

  @Test func anInvitationShowsOnTheInvitedPeerAndAAcceptsIt() throws {
    let home = TemporaryDirectory(prefix: "wormhole-peers")
    defer { home.remove() }
    let carolEvents = Collector<PeerEvent>()
    let daveEvents = Collector<PeerEvent>()
    let carol = try peer(
      "carol", home: home.path, policy: .ask, info: ["room": "kitchen"], browse: false, events: carolEvents)
    let dave = try peer("dave", home: home.path, policy: .always, info: nil, browse: true, events: daveEvents)
    defer { [carol, dave].forEach { $0.stop() } }
    // The answer comes when the operator gives it.
    let answers = invite(from: dave, events: daveEvents, to: carol)
    let executor = RecordingExecutor(MailboxEffectExecutor(isReadOnly: false))
    let run = try LoopRun(
      source: ScriptedEventSource(initial: []), executor: executor, readOnly: false, realWaits: { true },
      messageSources: [PeersSource(home: home.path)],
      script: [
        .waitFor("chat  2 peers, 0 connected"), .waitFor("◐ carol#"),
      ] + keys("jj") + [
        .waitFor("room       kitchen"), .waitFor("from dave#"),
      ] + keys("a") + [
        .waitFor("accepted the invitation from dave#"), .waitFor("● carol#"),
        .waitFor("chat  2 peers, 2 connected"),
      ] + keys(":peer-send dave reliable hi<Enter>") + [.waitFor("send of 2 bytes reliable from carol#")]
        + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(run.exit == .quit)
    #expect(answers.wait(for: 1).first?.hasPrefix("ok") == true, "\(answers.wait(for: 1))")
    #expect(carol.engine.connectedPeers == [dave.identity])
    let received = daveEvents.wait { $0.contains { if case .data = $0 { true } else { false } } }
    #expect(received.contains { if case .data = $0 { true } else { false } }, "\(received)")
  }

  @Test func aDeclineThroughTheEffectLeavesBothNotConnected() throws {
    let home = TemporaryDirectory(prefix: "wormhole-peers")
    defer { home.remove() }
    let carolEvents = Collector<PeerEvent>()
    let daveEvents = Collector<PeerEvent>()
    let carol = try peer(
      "carol", home: home.path, policy: .ask, info: [:], browse: false, events: carolEvents)
    let dave = try peer("dave", home: home.path, policy: .always, info: nil, browse: true, events: daveEvents)
    defer { [carol, dave].forEach { $0.stop() } }
    let answers = invite(from: dave, events: daveEvents, to: carol)
    let invitation = carolEvents.wait { $0.contains { if case .invitation = $0 { true } else { false } } }
    #expect(!invitation.isEmpty)
    let snapshot = try #require(PeersSource.snapshots(home: home.path).first { $0.name == "carol" })
    #expect(snapshot.name == "carol" && snapshot.invitations.map(\.peer) == [dave.identity.description])
    let answer = PeerAnswer(
      controlSocketPath: snapshot.controlSocketPath, peer: snapshot.label,
      from: snapshot.invitations[0].peer, accepts: false)
    let result = EffectJob(effect: .answerInvitation(answer), model: ModelState()).run(
      with: MailboxOperations())
    #expect(result.failure == nil, "\(result)")
    #expect(answers.wait(for: 1).first?.contains("declined") == true, "\(answers.wait(for: 1))")
    // Answering again: nothing waits any more, and the failure says so.
    let again = EffectJob(effect: .answerInvitation(answer), model: ModelState()).run(
      with: MailboxOperations())
    #expect(again.failure?.contains("no invitation waiting") == true, "\(again)")
  }

  @Test func aStatusReadsFoundConnectedAndInvitationsWithAContextDecoded() throws {
    let archive = try KeyedArchiveEncoder().encodeBytes(.string("join the kitchen"))
    let hex = archive.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
    var snapshot = PeerSnapshot(service: "chat", name: "carol", id: 0xca01)
    PeersSource.apply(
      status:
        "peer carol#ca01\nfound dave#da0e\nconnected erin#e001\ninvited-by dave#da0e\t\(hex)\n"
        + "invited-by frank#f001\ninvited-by gus#0001\tzz",
      to: &snapshot)
    #expect(snapshot.found == ["dave#da0e"])
    #expect(snapshot.connected == ["erin#e001"])
    #expect(snapshot.invitations.map(\.peer) == ["dave#da0e", "frank#f001", "gus#0001"])
    #expect(snapshot.invitations[0].context?.contains("join the kitchen") == true, "\(snapshot.invitations)")
    #expect(snapshot.invitations[1].context == nil)
    #expect(snapshot.invitations[2].context == "(unreadable context)")
  }
}
