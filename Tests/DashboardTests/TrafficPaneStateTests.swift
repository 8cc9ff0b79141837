import Dashboard
import MailboxModel
import Testing
import WormholeVocabulary

/// The traffic pane on its own: a stream of entries made by hand in, no model or dashboard.
@Suite struct TrafficPaneStateTests {
  static func entry(_ id: UInt64, _ identifier: FileName, sender: String = "app") -> TrafficEntry {
    TrafficEntry(
      id: id, milliseconds: Int64(id), kind: .passed, directory: group, identifier: identifier,
      transiting: "file", size: 1, sender: sender)
  }

  static let stream = [entry(1, "alpha"), entry(2, "beta"), entry(3, "alpha.two"), entry(4, "gamma")]

  @Test func itFollowsTheNewestUntilMovedAndMovingPastTheNewestFollowsAgain() {
    var pane = TrafficPaneState()
    #expect(pane.selection == nil)
    #expect(pane.identifiers(in: Self.stream) == [1, 2, 3, 4])
    pane.update(.move(by: -1), traffic: Self.stream)
    #expect(pane.selection == 4)
    pane.update(.move(by: -10), traffic: Self.stream)
    #expect(pane.selection == 1)
    pane.update(.move(by: 2), traffic: Self.stream)
    #expect(pane.selection == 3)
    pane.update(.move(by: 5), traffic: Self.stream)
    #expect(pane.selection == nil)
    pane.update(.selectFirst, traffic: Self.stream)
    #expect(pane.selection == 1)
    pane.update(.follow, traffic: Self.stream)
    #expect(pane.selection == nil)
  }

  @Test func aFilterShowsMatchingEntriesAndDropsASelectionItHides() {
    var pane = TrafficPaneState()
    pane.update(.move(by: -3), traffic: Self.stream)
    #expect(pane.selection == 2)
    pane.update(.filter(PaneFilter("alpha")), traffic: Self.stream)
    #expect(pane.identifiers(in: Self.stream) == [1, 3])
    #expect(pane.selection == nil)
    pane.update(.move(by: -1), traffic: Self.stream)
    #expect(pane.selection == 3)
    // `!` inverts, and an entry is matched on what its row shows (the sender too).
    pane.update(.filter(PaneFilter("!alpha")), traffic: Self.stream)
    #expect(pane.identifiers(in: Self.stream) == [2, 4])
    pane.update(.filter(PaneFilter("^passed beta file app")), traffic: Self.stream)
    #expect(pane.identifiers(in: Self.stream) == [2])
  }

  @Test func appendedEntriesJoinTheFilteredListAndDroppedOnesLeaveIt() {
    var pane = TrafficPaneState()
    pane.update(.filter(PaneFilter("alpha")), traffic: Self.stream)
    let more = [Self.entry(5, "alpha.three"), Self.entry(6, "delta")]
    pane.update(.appended(more), traffic: Self.stream + more)
    #expect(pane.identifiers(in: Self.stream + more) == [1, 3, 5])
    let trimmed = Array((Self.stream + more).dropFirst(2))
    pane.update(.droppedFromFront, traffic: trimmed)
    #expect(pane.identifiers(in: trimmed) == [3, 5])
  }

  @Test func escapeDropsTheFilterFirstThenTheSelection() {
    var pane = TrafficPaneState()
    pane.update(.filter(PaneFilter("alpha")), traffic: Self.stream)
    pane.update(.move(by: -1), traffic: Self.stream)
    pane.update(.back, traffic: Self.stream)
    #expect(pane.filter == nil)
    #expect(pane.selection == 3)
    #expect(pane.identifiers(in: Self.stream) == [1, 2, 3, 4])
    pane.update(.back, traffic: Self.stream)
    #expect(pane.selection == nil)
  }

  @Test func aClickSelectsTheRowInTheWindowThePaneShows() {
    var pane = TrafficPaneState()
    // Following the newest, three rows show entries 2, 3 and 4.
    pane.update(.selectShown(offset: 0, visibleRows: 3), traffic: Self.stream)
    #expect(pane.selection == 2)
    pane.update(.follow, traffic: Self.stream)
    pane.update(.selectShown(offset: 7, visibleRows: 3), traffic: Self.stream)
    #expect(pane.selection == nil)
    pane.update(.selectShown(offset: -1, visibleRows: 3), traffic: Self.stream)
    #expect(pane.selection == nil)
  }
}
