import Dashboard
import Testing
import WormholeVocabulary

/// The `/` filter: a bounded regular expression, never a frozen loop, never a silent wrong answer.
@Suite struct PaneFilterTests {
  /// Issue 12: `(a+)+$` against `a` x 240 + `!` backtracked for over a minute on the loop.
  @Test func aCatastrophicPatternIsCutOffAndTheTreeSaysOnHowManyNames() {
    let slow = String(repeating: "a", count: 240) + "!"
    var harness = DashboardHarness(mailboxes: [
      FileName(slow): .integer(1), FileName(slow + "!"): .integer(2), "aaa": .integer(3), "beta": .integer(4),
    ])
    harness.type("/(a+)+$")
    #expect(harness.shows("cut off on 2 names"))
    // "aaa" is decided (it matches); the two cut-off names are hidden, and said to be.
    #expect(harness.state.treeRowCount == 2)
    #expect(harness.shows("aaa"))
    #expect(!harness.shows("beta"))
  }
}
