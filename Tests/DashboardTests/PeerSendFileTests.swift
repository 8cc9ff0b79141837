import Dashboard
import Testing

/// Running peers to send from: `lamp` and `bob` of `chat`.
private func peerHarness() -> DashboardHarness {
  var harness = DashboardHarness(width: 120, height: 40)
  harness.send(
    .peers([
      PeerSnapshot(
        service: "chat", name: "lamp", id: 0x1a2b, pid: 21,
        controlSocketPath: "/w/peers/chat/0000000000001a2b.control.sock"),
      PeerSnapshot(
        service: "chat", name: "bob", id: 0xb0b, pid: 22,
        controlSocketPath: "/w/peers/chat/0000000000000b0b.control.sock"),
    ]))
  harness.effects = []
  return harness
}

@Suite struct PeerSendFileTests {
  @Test func atFileSendsTheFilesBytesAndTextStaysText() throws {
    var harness = peerHarness()
    harness.type("G")
    let peer = try #require(harness.state.selectedPeer)
    harness.type(":peer-send lamp reliable @notes.bin<Enter>")
    let file = PeerDataSend(
      controlSocketPath: peer.controlSocketPath, peer: peer.label, targets: "lamp", mode: "reliable",
      data: [],
      file: "notes.bin")
    #expect(harness.effects == [.peerSend(file)])
    #expect(DashboardEffect.peerSend(file).operation.hasPrefix(#"send of file "notes.bin" reliable"#))
    harness.type(":peer-send lamp reliable @<Enter>")
    #expect(
      harness.effects.last
        == .peerSend(
          PeerDataSend(
            controlSocketPath: peer.controlSocketPath, peer: peer.label, targets: "lamp", mode: "reliable",
            data: Array("@".utf8))), "a lone @ is text")
  }
}
