import FleetModel
import Testing
import WormholeVocabulary

/// Machine names that Swift's `String` calls equal but whose bytes differ (`é` as U+00E9, and as
/// `e` with U+0301) are two machines on the broker (two topic levels, and an ACL confines each to
/// its own): the fleet must never file one's messages under the other.
@Suite struct FleetEquivalentNameTests {
  static let composed = "caf\u{E9}"
  static let decomposed = "cafe\u{301}"

  @Test func theNamesAreEqualStringsButOtherTopicLevels() {
    #expect(Self.composed == Self.decomposed)
    #expect(
      Bridged.presence(Self.composed, "online").topic != Bridged.presence(Self.decomposed, "online").topic)
  }

  @Test func anImpostorWithAnEquivalentNameChangesNothingOfTheMachineShown() {
    var fleet = FleetState()
    fleet.apply(
      [
        Bridged.presence(Self.composed, "online"), Bridged.info(Self.composed, allowed: true, reason: nil),
        Bridged.mailbox(Self.composed, "/d", "legit", .string("mine")),
      ], at: 1)
    let change = fleet.apply(
      [
        Bridged.presence(Self.decomposed, "offline"),
        Bridged.info(Self.decomposed, allowed: false, reason: "forged"),
        Bridged.mailbox(Self.decomposed, "/d", "evil", .string("forged")),
        Bridged.cleared(Self.decomposed, "/d", "legit"),
      ], at: 2)
    #expect(fleet.machineNames.count == 1)
    let shown = fleet.machines[Self.composed]
    #expect(shown.map { Array($0.name.utf8) } == Array(Self.composed.utf8))
    #expect(shown?.presence == .online)
    #expect(shown?.remoteWrites?.isAllowed == true)
    #expect(shown?.mailbox("evil", in: "/d") == nil)
    #expect(shown?.mailbox("legit", in: "/d")?.current != nil)
    #expect(change.dropped == 4)
    #expect(
      fleet.lastDropReason?.contains("the same text as machine") == true, "\(fleet.lastDropReason ?? "")")
  }

  @Test func theSameMachineByteForByteIsStillOne() {
    var fleet = FleetState()
    fleet.apply([Bridged.presence(Self.decomposed, "online")], at: 1)
    let change = fleet.apply([Bridged.mailbox(Self.decomposed, "/d", "a", .string("x"))], at: 2)
    #expect(change.dropped == 0)
    #expect(fleet.machines[Self.decomposed]?.mailbox("a", in: "/d") != nil)
  }
}
