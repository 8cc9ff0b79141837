import Dashboard
import Testing

/// A running device whose link was taken over by another run of its role, or refused by the
/// broker, says so in the pairs' branch: its row, the pair's contents and its own.
@Suite struct PairDenialTests {
  /// `desk`: both devices running, the phone taken over (a reason that tries to clear the
  /// screen), the watch refused once.
  static func pairs() -> [PairSnapshot] {
    [
      PairSnapshot(
        name: "desk",
        phone: PairSnapshot.Device(
          role: .phone, runningPID: 41,
          denial: .init(isTakenOver: true, reason: "another phone of desk took its place\u{1B}[2J")),
        watch: PairSnapshot.Device(
          role: .watch, runningPID: 42, denial: .init(isTakenOver: false, reason: "Not authorized")),
        reachability: .unreachable)
    ]
  }

  @Test func aDeviceTakenOverOrRefusedSaysSoInItsRowAndContents() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.pairs(Self.pairs()))
    harness.send(.resize(width: 200, height: 30))
    #expect(harness.shows("phone taken over, activated  ctx -"), "\(harness)")
    #expect(harness.shows("watch refused, activated  ctx -"), "\(harness)")
    harness.type("jj")
    #expect(harness.state.selection == .pair("desk"))
    let pair = harness.state.contentsLines().map { $0.pieces.map(\.text).joined() }
    #expect(pair.contains("reachable  no: the phone was taken over"), "\(pair)")
    #expect(
      pair.contains { $0.hasPrefix("phone taken over: another phone of desk took its place") }, "\(pair)")
    #expect(pair.contains("watch refused: Not authorized"), "\(pair)")
    harness.type("j")
    #expect(harness.state.selection == .device(pair: "desk", role: .phone))
    let device = harness.state.contentsLines().map { $0.pieces.map(\.text).joined() }
    #expect(
      device.contains { $0.hasPrefix("link       taken over: another phone of desk took its place") },
      "\(device)")
    #expect(!(pair + device).joined().contains("\u{1B}"))
  }
}
