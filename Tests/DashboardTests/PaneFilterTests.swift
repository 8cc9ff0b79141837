import Dashboard
import PatternMatching
import Synchronization
import Testing
import WormholeVocabulary

/// The `/` filter: a bounded regular expression, never a frozen loop, never a silent wrong answer.
@Suite struct PaneFilterTests {
  let slow = String(repeating: "a", count: 240) + "!"

  /// A pasted expression too large for the matcher says so and its size, not a "character"
  /// that is merely where PCRE2 noticed; an error at a place still names the place.
  @Test func anExpressionTooLargeIsSaidAsSuchNotAtACharacter() {
    let large = String(repeating: "[ab]", count: 75_000)
    let filter = PaneFilter(large)
    #expect(
      filter.error?.hasPrefix("not a regular expression the matcher takes: ") == true, "\(filter.error ?? "")"
    )
    #expect(filter.error?.hasSuffix("(300000 characters)") == true, "\(filter.error ?? "")")
    #expect(filter.error?.contains("at character") == false)
    #expect(
      PaneFilter("!ab(").error == "not a regular expression: missing closing parenthesis at character 4")
  }

  /// Issue 12: `(a+)+$` against `a` x 240 + `!` backtracked for over a minute on the loop.
  @Test func aCatastrophicPatternIsCutOffAndTheTreeSaysOnHowManyNames() {
    var harness = DashboardHarness(mailboxes: [
      FileName(slow): .integer(1), FileName(slow + "!"): .integer(2), "aaa": .integer(3), "beth": .integer(4),
    ])
    harness.type("/(a+)+$")
    #expect(harness.shows("cut off on 2 names"))
    // "aaa" is decided (it matches); the two cut-off names are hidden, and said to be.
    #expect(harness.state.treeRowCount == 2)
    #expect(harness.shows("aaa"))
    #expect(!harness.shows("beth"))
    harness.type("<Enter>")
    #expect(harness.shows("/(a+)+$ (2 hidden)"))
    // A change in the directory filters it again; the count stays that of the tree.
    harness.changeMailbox(FileName(slow), to: .integer(5))
    harness.changeMailbox("beth", to: .integer(6))
    #expect(harness.shows("/(a+)+$ (2 hidden)"))
    #expect(harness.state.treeRowCount == 2)
  }

  @Test func afterAFewCutOffsTheRestOfThePassIsNotTriedAndCounted() {
    var filter = PaneFilter("(a+)+$")
    filter.beginPass()
    let admitted = (0..<10).map { filter.admits(slow + String(repeating: "!", count: $0)) }
    #expect(admitted.allSatisfy { !$0 })
    #expect(filter.undecidedCount == 10)
    #expect(
      filter.notice()
        == "pattern (a+)+$ cut off on 3 names, not tried on 7 more: too costly to match (PCRE2 match limit); hidden"
    )
    #expect(filter.notice(counting: "rows")?.contains("cut off on 3 rows") == true)
    filter.beginPass()
    #expect(filter.notice() == nil)
    let decided = filter.admits("aaa")
    #expect(decided)
  }

  @Test func anUndecidedNameIsHiddenUnderAnInvertedFilterToo() {
    var filter = PaneFilter("!(a+)+$")
    filter.beginPass()
    let admitted = [slow, "beth", "aaa"].map { filter.admits($0) }
    #expect(admitted == [false, true, false])
    #expect(filter.notice()?.hasPrefix("pattern (a+)+$ cut off on 1 name:") == true)
  }

  @Test func aPassThatRunsOutOfTimeSaysHowManyItDidNotTry() {
    var filter = PaneFilter(
      "^a",
      budget: MatchBudget(
        timeLimit: .milliseconds(10), minimumTriedPerBurst: 1, clock: MatchClock { stepping.next() }))
    filter.beginPass()
    // One reading a name, 1 ms apart: the eleventh ends 10 ms after the first.
    let admitted = (0..<15).filter { _ in filter.admits("alpha") }.count
    #expect(admitted == 11)
    #expect(filter.notice() == "pattern ^a not tried on 4 names: matching took over 10 ms; hidden")
  }

  @Test func bangInverts() {
    var harness = DashboardHarness(mailboxes: ["alpha": .integer(1), "beta": .integer(2)])
    harness.type("/!^al")
    #expect(harness.state.treeRowCount == 2)
    #expect(harness.shows("beta"))
    #expect(!harness.shows("alpha"))
  }

  @Test(arguments: [
    ("é$", ["café"]), ("^日本", ["日本語"]), ("👍", ["ok👍"]), ("^\\w+$", ["café", "日本語", "plain"]),
    ("^.{3}$", ["日本語", "ok👍"]), ("^(?i)CAFÉ$", ["café"]),
  ])
  func unicodeNamesMatchAsCharacters(source: String, expected: [String]) {
    var harness = DashboardHarness(mailboxes: [
      "café": .integer(1), "日本語": .integer(2), "ok👍": .integer(3), "plain": .integer(4),
    ])
    harness.type("/" + source)
    #expect(harness.state.treeRowCount == 1 + expected.count)
    for name in expected { #expect(harness.shows(name)) }
  }

  @Test func anInvalidPatternSaysWhereCountingTheBang() {
    #expect(PaneFilter("(").error == "not a regular expression: missing closing parenthesis at character 1")
    #expect(
      PaneFilter("!日本(").error == "not a regular expression: missing closing parenthesis at character 4")
    #expect(PaneFilter("!(").matches("anything"))
    #expect(PaneFilter("!").isEmpty)
  }

  @Test func aPatternWithControlCharactersIsEscapedInTheNotice() {
    var filter = PaneFilter("\u{1B}]2;x\u{7}|(a+)+$")
    filter.beginPass()
    _ = filter.admits(slow)
    let notice = filter.notice() ?? ""
    #expect(!notice.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
  }
}

/// A clock for one test: 1 ms further at every reading.
private let stepping = Stepping()

private final class Stepping: Sendable {
  private let count = Atomic<Int64>(0)
  func next() -> Duration { .milliseconds(count.add(1, ordering: .relaxed).newValue) }
}
