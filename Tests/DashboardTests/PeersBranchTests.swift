import SnapshotSupport
import Testing
import WormholeVocabulary
@testable import Dashboard

private let snapshots = snapshotDirectory()

/// Three peers of `chat`: `alice` advertising with info and connected to `bob`, `bob`
/// connected to `alice`, and `carol` with an invitation from `dave` waiting; one peer of
/// `files` whose name tries to move the cursor.
private func peers() -> [PeerSnapshot] {
  [
    PeerSnapshot(
      service: "files", name: "evil\u{1B}[2J", id: 0x9, pid: 77,
      controlSocketPath: "/h/peers/files/9.control.sock"),
    PeerSnapshot(
      service: "chat", name: "bob", id: 0x2b0b, pid: 12, found: ["alice#a11c"], connected: ["alice#a11c"]),
    PeerSnapshot(
      service: "chat", name: "alice", id: 0xa11c, pid: 11, isAdvertising: true, info: ["room": "kitchen"],
      found: ["bob#2b0b"], connected: ["bob#2b0b"]),
    PeerSnapshot(
      service: "chat", name: "carol", id: 0xca01, pid: 13,
      invitations: [PeerSnapshot.Invitation(peer: "dave#da0e")],
      controlSocketPath: "/h/peers/chat/000000000000ca01.control.sock"),
  ]
}

@Suite struct PeersBranchTests {
  @Test func noPeersAddsNoBranch() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    let rows = harness.state.treeRowCount
    harness.send(.peers([]))
    #expect(harness.state.treeRowCount == rows)
    #expect(!harness.shows("peers"))
  }

  @Test func peersFollowTheDirectoriesAServiceTypeAndEachPeerARow() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    // The directory and its mailbox, the branch, chat and its three peers (by name), files and its peer.
    #expect(harness.state.treeRowCount == 2 + 1 + 4 + 2)
    #expect(harness.state.node(atRow: 2) == .peers)
    #expect(harness.state.node(atRow: 3) == .peerService("chat"))
    #expect(harness.state.node(atRow: 4) == .peer(service: "chat", id: 0xa11c))
    #expect(harness.state.node(atRow: 5) == .peer(service: "chat", id: 0x2b0b))
    #expect(harness.state.node(atRow: 6) == .peer(service: "chat", id: 0xca01))
    #expect(harness.state.node(atRow: 7) == .peerService("files"))
    #expect(harness.state.node(atRow: 9) == nil)
    #expect(harness.shows("● alice#a11c  adv  ↔ bob#2b0b"), "\(harness)")
    #expect(harness.shows("◐ carol#ca01  1 invited"), "\(harness)")
    #expect(harness.shows("chat  3 peers, 2 connected"), "\(harness)")
    #expect(!harness.lines.joined().contains("\u{1B}"))
  }

  /// The other peers a status names come written as the peer wrote them (`PeerIdentity`'s
  /// description: escaped already, quoted when it needs to be): shown as they came, not quoted and
  /// escaped a second time; a raw control character a hostile status holds is still escaped.
  @Test func peersNamedByAStatusAreShownEscapedOnceNotTwice() {
    let named = ##""de\u{1b}[31msk"#6da4"##
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(
      .peers([
        PeerSnapshot(
          service: "chat", name: "host", id: 0x1, pid: 1, found: [named, "raw\u{1B}]0;x\u{7}#0002"],
          connected: [named], invitations: [PeerSnapshot.Invitation(peer: named)],
          departures: [PeerSnapshot.Departure(peer: named, reason: "left the session")])
      ]))
    #expect(harness.shows("↔ " + named), "\(harness)")
    harness.type("jjj")
    let text = harness.state.contentsLines().map { $0.pieces.map(\.text).joined() }
    #expect(text.contains(named), "\(text)")
    #expect(text.contains { $0.hasPrefix("from " + named) }, "\(text)")
    #expect(!text.joined().contains(#"\""#), "\(text)")
    #expect(!text.joined().contains("\u{1B}"), "\(text)")
    #expect(!harness.lines.joined().contains("\u{1B}"))
  }

  @Test func aSelectedPeerShowsItsInfoConnectionsAndInvitation() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    harness.type("jjj")
    #expect(harness.state.selectedPeer?.name == "alice")
    let text = harness.state.contentsLines().map { $0.pieces.map(\.text).joined() }
    #expect(text.contains { $0.contains("room") && $0.contains("kitchen") }, "\(text)")
    #expect(text.contains("connected (1)"), "\(text)")
    harness.type("jj")
    let carol = harness.state.contentsLines().map { $0.pieces.map(\.text).joined() }
    #expect(carol.contains("invitations waiting (1)"), "\(carol)")
    #expect(carol.contains { $0.hasPrefix("from dave#da0e") }, "\(carol)")
  }

  @Test func aAcceptsAndXDeclinesTheWaitingInvitation() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    harness.type("jjjjja")
    let accept = PeerAnswer(
      controlSocketPath: "/h/peers/chat/000000000000ca01.control.sock", peer: "carol#ca01", from: "dave#da0e",
      accepts: true)
    #expect(harness.effects == [.answerInvitation(accept)])
    harness.type("x")
    var decline = accept
    decline.accepts = false
    #expect(harness.effects == [.answerInvitation(accept), .answerInvitation(decline)])
    #expect(DashboardEffect.answerInvitation(decline).writes)
    harness.send(.effectFinished(.done(.answerInvitation(accept))))
    #expect(harness.shows("accepted the invitation from dave#da0e to carol#ca01"), "\(harness)")
  }

  @Test func peerSendSendsFromTheSelectedPeer() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    harness.type(":peer-send bob reliable hi<Enter>")
    #expect(harness.effects.isEmpty)
    #expect(harness.shows("peer-send: select the peer to send from"), "\(harness)")
    harness.type("jjj:peer-send bob,carol unreliable {\"a\": 1}<Enter>")
    let send = PeerDataSend(
      controlSocketPath: "", peer: "alice#a11c", targets: "bob,carol", mode: "unreliable",
      data: Array(#"{"a": 1}"#.utf8))
    #expect(harness.effects == [.peerSend(send)])
    #expect(DashboardEffect.peerSend(send).writes)
    harness.type(":peer-send bob sideways hi<Enter>")
    #expect(harness.effects.count == 1)
    #expect(harness.shows(":peer-send takes TO[,TO...]"), "\(harness)")
  }

  @Test func aOnAPeerWithoutAnInvitationSaysSoAndWritesNothing() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    harness.type("jjja")
    #expect(harness.effects.isEmpty)
    #expect(harness.shows("no invitation waits for this peer"), "\(harness)")
  }

  @Test func readOnlyRefusesTheAnswer() {
    var harness = DashboardHarness(readOnly: true, mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    harness.type("jjjjja")
    #expect(harness.effects.isEmpty)
    #expect(harness.shows("read-only:"), "\(harness)")
  }

  @Test func enterFoldsAServiceTypeAndTheBranchAndTheSelectionFollowsAPeerThatGoes() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    harness.type("jj<Enter>")
    #expect(harness.state.selection == .peerService("chat"))
    #expect(harness.state.treeRowCount == 2 + 1 + 1 + 2)
    #expect(harness.state.node(atRow: 4) == .peerService("files"))
    harness.type("<Enter>k<Enter>")
    #expect(harness.state.selection == .peers)
    #expect(harness.state.treeRowCount == 2 + 1)
    harness.type("<Enter>jj")
    #expect(harness.state.selection == .peer(service: "chat", id: 0xa11c))
    // alice ends: the row that held her is selected.
    harness.send(.peers(peers().filter { $0.name != "alice" }))
    #expect(harness.state.selection == .peer(service: "chat", id: 0x2b0b))
  }

  @Test(arguments: [(80, 24), (120, 40)])
  func screens(width: Int, height: Int) {
    var harness = DashboardHarness(width: width, height: height, mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    harness.type("jjjjj")
    expectSnapshot(harness.screen, named: "peers-invited-\(width)x\(height)", in: snapshots)
  }
}
