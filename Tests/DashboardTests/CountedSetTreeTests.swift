import ArchivedValues
import Dashboard
import Testing
import WormholeVocabulary

/// The contents pane's tree lists every element of a counted set with its count, as `read`
/// does, rather than a one-line summary cut at 200 columns; the diff sees a changed count.
@Suite struct CountedSetTreeTests {
  private static func tally(_ counts: [Int64]) -> ArchivedValue {
    .countedSet(
      counts.enumerated().map {
        ArchivedCountedElement(value: .string("word\($0.offset)"), count: $0.element)
      })
  }

  @Test func everyElementIsARowWithItsCount() {
    var harness = DashboardHarness(
      width: 140, height: 80, mailboxes: ["tally": Self.tally(Array(repeating: 2, count: 60))])
    harness.type("<Tab>G")
    #expect(harness.shows("2×: \"word59\""), "\(harness)")
  }

  @Test func theDiffSeesAChangedCount() {
    var harness = DashboardHarness(width: 140, mailboxes: ["tally": Self.tally([1, 1])])
    harness.changeMailbox("tally", to: Self.tally([1, 5]))
    harness.type("<Tab>vvvv")
    #expect(harness.shows("+ root[1]×5 = \"word1\""), "\(harness)")
    #expect(harness.shows("- root[1]×1 = \"word1\""), "\(harness)")
  }
}
