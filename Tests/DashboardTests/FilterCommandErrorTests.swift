import KeyedArchive
import Testing
import WormholeVocabulary

@testable import Dashboard

/// `:filter RE` with an expression that does not compile says so, as typing it after `/` does:
/// it is not applied, and nothing else on screen would tell.
@Suite struct FilterCommandErrorTests {
  @Test func aBadExpressionGivenToTheFilterCommandIsSaidAndNotApplied() {
    var harness = DashboardHarness(mailboxes: ["alpha": .integer(1), "beta": .integer(2)])
    harness.type(":filter (<Enter>")
    #expect(harness.state.status?.text.hasPrefix("filter not applied: not a regular expression") == true)
    #expect(harness.state.status?.isError == true)
    #expect(harness.shows("alpha") && harness.shows("beta"), "\(harness)")
    // A good one applies.
    harness.type(":filter ^al<Enter>")
    #expect(harness.shows("alpha") && !harness.shows("beta"), "\(harness)")
  }
}
