import Dashboard
import KeyedArchive
import MailboxModel
import Testing
import WormholeVocabulary

/// The rules between the panes that only the composed dashboard has.
@Suite struct DashboardCompositionTests {
  static let value = ArchivedValue.dictionary([
    .init(key: .string("items"), value: .array([.integer(1), .integer(2), .integer(3)])),
    .init(key: .string("count"), value: .integer(3)),
  ])

  @Test func aNewSelectionStartsTheContentsPaneAgainAndAChangeElsewhereDoesNot() {
    var harness = DashboardHarness(mailboxes: ["a": Self.value, "b": Self.value])
    // Until the operator moves, the first mailbox is selected.
    #expect(harness.state.selection?.identifier == "a")
    harness.type("<Tab>jj")
    #expect(harness.state.contentsPane.cursor == 2)
    harness.changeMailbox("b", to: .integer(9))
    #expect(harness.state.contentsPane.cursor == 2, "\(harness)")
    harness.type("<S-Tab>j")  // on "b"
    #expect(harness.state.selection?.identifier == "b")
    #expect(harness.state.contentsPane.cursor == 0)
    #expect(harness.state.contentsPane.scroll == 0)
  }

  @Test func thePanesKeepTheirOwnFiltersAndEscapeClearsOnlyTheFocusedOne() {
    var harness = DashboardHarness(mailboxes: ["alpha": .integer(1), "beta": .integer(2)])
    harness.type("/alpha<Enter>")
    harness.type("<Tab><Tab>/pass<Enter>")
    #expect(harness.state.treePane.filter?.text == "alpha")
    #expect(harness.state.trafficPane.filter?.text == "pass")
    harness.type("<Esc>")
    #expect(harness.state.trafficPane.filter == nil)
    #expect(harness.state.treePane.filter?.text == "alpha")
    #expect(harness.state.treeRowCount == 2)
  }
}
