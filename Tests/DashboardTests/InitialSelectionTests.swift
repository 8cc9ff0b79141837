import Dashboard
import Testing
import WormholeVocabulary

/// Until the operator moves, the first mailbox is selected as the model fills, whatever branch
/// was in the tree first (the demo reads its pair before its mailboxes appear).
@Suite struct InitialSelectionTests {
  private static let pair = PairSnapshot(
    name: "demo", phone: PairSnapshot.Device(role: .phone, runningPID: 42),
    watch: PairSnapshot.Device(role: .watch))

  @Test func theFirstMailboxIsSelectedWhenThePairsBranchCameFirst() {
    var harness = DashboardHarness()
    harness.send(.pairs([Self.pair]))
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(group),
          .directoryScanned(group, mailboxes: ["ack": archive(.boolean(true))], initial: true),
        ], at: harness.now))
    #expect(harness.state.selection == .mailbox(directory: group, identifier: "ack"))
    // A mailbox changing later does not move a selection the operator made.
    harness.type("G")
    let chosen = harness.state.selection
    harness.changeMailbox("ack", to: .boolean(false))
    #expect(harness.state.selection == chosen)
  }

  @Test func theFirstMailboxIsSelectedWhenTheFirstDirectoryIsEmpty() {
    let second: FileName = "/w/AppGroup/group.later"
    var harness = DashboardHarness()
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(group), .directoryScanned(group, mailboxes: [:], initial: true),
          .directoryAppeared(second),
          .directoryScanned(second, mailboxes: ["button": archive(.integer(1))], initial: true),
        ], at: harness.now))
    #expect(harness.state.selection == .mailbox(directory: second, identifier: "button"))
  }
}
