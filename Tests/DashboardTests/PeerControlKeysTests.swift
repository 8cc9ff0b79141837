import SnapshotSupport
import Testing
import WormholeVocabulary

@testable import Dashboard

private let snapshots = snapshotDirectory()

/// Peers of `chat` with what the keys `X` and `C` act on: `alice` sending two resources (one to
/// `bob` at 40%, one to `carol` just started), `bob` receiving one and left by `dave`, `carol`
/// with an invitation from `dave` whose context came decoded.
private func peers() -> [PeerSnapshot] {
  [
    PeerSnapshot(
      service: "chat", name: "alice", id: 0xa11c, pid: 11, isAdvertising: true, connected: ["bob#2b0b"],
      resources: [
        PeerSnapshot.Resource(
          id: "a11c/1", name: "notes.bin", isSending: true, peer: "bob#2b0b", bytes: 400_000, total: 1_000_000
        ),
        PeerSnapshot.Resource(
          id: "a11c/2", name: "photo\u{1B}[2J.jpg", isSending: true, peer: "carol#ca01", bytes: 0,
          total: 2_500_000),
      ],
      controlSocketPath: "/h/peers/chat/000000000000a11c.control.sock"),
    PeerSnapshot(
      service: "chat", name: "bob", id: 0x2b0b, pid: 12, connected: ["alice#a11c"],
      resources: [
        PeerSnapshot.Resource(
          id: "a11c/1", name: "notes.bin", isSending: false, peer: "alice#a11c", bytes: 400_000,
          total: 1_000_000)
      ],
      departures: [PeerSnapshot.Departure(peer: "dave#da0e", reason: "left the session")],
      controlSocketPath: "/h/peers/chat/0000000000002b0b.control.sock"),
    PeerSnapshot(
      service: "chat", name: "carol", id: 0xca01, pid: 13,
      invitations: [PeerSnapshot.Invitation(peer: "dave#da0e", context: "{game: \"chess\", round: 2}")],
      controlSocketPath: "/h/peers/chat/000000000000ca01.control.sock"),
  ]
}

@Suite struct PeerControlKeysTests {
  private func text(_ harness: DashboardHarness) -> [String] {
    harness.state.contentsLines().map { $0.pieces.map(\.text).joined() }
  }

  @Test func aPeerShowsABarPerResourceAndWhoWentAwayWithTheReason() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    harness.type("jjj")
    #expect(harness.state.selectedPeer?.name == "alice")
    let alice = text(harness)
    #expect(alice.contains("resources in flight (2)"), "\(alice)")
    #expect(alice.contains { $0.hasPrefix("↑ notes.bin → bob#2b0b  a11c/1") }, "\(alice)")
    #expect(alice.contains("[████████░░░░░░░░░░░░]  40%  400 KB of 1.0 MB"), "\(alice)")
    #expect(alice.contains("[░░░░░░░░░░░░░░░░░░░░]  0%  0 B of 2.5 MB"), "\(alice)")
    #expect(!alice.joined().contains("\u{1B}"), "a name reaches the screen escaped")
    harness.type("j")
    let bob = text(harness)
    #expect(bob.contains { $0.hasPrefix("↓ notes.bin ← alice#a11c") }, "\(bob)")
    #expect(bob.contains("went away (1)"), "\(bob)")
    #expect(
      bob.contains { $0.contains("dave#da0e") && $0.contains("notConnected (left the session)") }, "\(bob)")
    harness.type("j")
    let carol = text(harness)
    #expect(carol.contains { $0.contains("context {game: \"chess\", round: 2}") }, "\(carol)")
    #expect(!carol.contains { $0.contains("resources in flight") }, "\(carol)")
  }

  @Test func xDisconnectsTheSelectedPeer() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    harness.type("X")
    #expect(harness.effects.isEmpty)
    #expect(harness.shows("disconnect: select the peer to disconnect"), "\(harness)")
    harness.type("jjjjX")
    let command = PeerCommand(
      controlSocketPath: "/h/peers/chat/0000000000002b0b.control.sock", peer: "bob#2b0b", request: .disconnect
    )
    #expect(harness.effects == [.peerCommand(command)])
    #expect(DashboardEffect.peerCommand(command).writes)
    harness.send(
      .effectFinished(.done(.peerCommand(command), detail: "left the session; alice#a11c see it leave")))
    #expect(
      harness.state.status?.text == "disconnect of bob#2b0b done: left the session; alice#a11c see it leave",
      "\(String(describing: harness.state.status))")
    harness.type(":peer-disconnect<Enter>")
    #expect(harness.effects == [.peerCommand(command), .peerCommand(command)])
  }

  @Test func cCancelsTheResourceUnderTheCursorOrTheOnlyOne() throws {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    // bob has one: C cancels it wherever the cursor is.
    harness.type("jjjjC")
    let bobs = PeerCommand(
      controlSocketPath: "/h/peers/chat/0000000000002b0b.control.sock", peer: "bob#2b0b",
      request: .cancel(id: "a11c/1", name: "notes.bin"))
    #expect(harness.effects == [.peerCommand(bobs)])
    // alice has two: the cursor picks, on the heading or on the bar below it.
    harness.type("kC")
    #expect(harness.effects.count == 1)
    #expect(harness.shows("cancel: put the contents cursor on the resource to cancel"), "\(harness)")
    let lines = text(harness)
    let second = try #require(lines.firstIndex { $0.hasPrefix("↑ \"photo") }, "\(lines)")
    harness.type("<Tab>")
    for _ in 0..<second { harness.type("j") }
    harness.type("C")
    let alices = PeerCommand(
      controlSocketPath: "/h/peers/chat/000000000000a11c.control.sock", peer: "alice#a11c",
      request: .cancel(id: "a11c/2", name: "photo\u{1B}[2J.jpg"))
    #expect(harness.effects == [.peerCommand(bobs), .peerCommand(alices)], "\(harness)")
    // carol has none.
    harness.type("<S-Tab>jjC")
    #expect(harness.effects.count == 2)
    #expect(harness.shows("cancel: no resource of this peer is in flight"), "\(harness)")
  }

  @Test func readOnlyRefusesDisconnectAndCancel() {
    var harness = DashboardHarness(readOnly: true, mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    harness.type("jjjX")
    #expect(harness.effects.isEmpty)
    #expect(harness.shows("read-only:"), "\(harness)")
    harness.type("C")
    #expect(harness.effects.isEmpty)
  }

  @Test func theFooterShowsThePeersKeysOnlyOnAPeer() {
    var harness = DashboardHarness(width: 120, height: 30, mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    #expect(!(harness.lines.last ?? "").contains("X disconnect"), "\(harness)")
    harness.type("jjj")
    #expect((harness.lines.last ?? "").contains("X disconnect"), "\(harness)")
    #expect((harness.lines.last ?? "").contains("C cancel"), "\(harness)")
  }

  @Test(arguments: [(80, 24), (120, 40)])
  func screens(width: Int, height: Int) {
    var harness = DashboardHarness(width: width, height: height, mailboxes: ["button": .string("tap")])
    harness.send(.peers(peers()))
    harness.type("jjj")
    expectSnapshot(harness.screen, named: "peers-resources-\(width)x\(height)", in: snapshots)
    harness.type("j")
    expectSnapshot(harness.screen, named: "peers-went-away-\(width)x\(height)", in: snapshots)
    harness.type("j")
    expectSnapshot(harness.screen, named: "peers-invitation-context-\(width)x\(height)", in: snapshots)
  }
}
