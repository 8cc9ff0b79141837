import Dashboard
import KeyedArchive
import MailboxModel
import Testing
import WormholeVocabulary

/// The tree pane on its own: the model's directories in, no dashboard around it.
@Suite struct TreePaneStateTests {
  /// A model holding `identifiers` (each an integer archive) in ``group``.
  static func model(_ identifiers: [FileName]) -> ModelState {
    var model = ModelState()
    let observations = Dictionary(uniqueKeysWithValues: identifiers.map { ($0, archive(.integer(1))) })
    _ = model.apply(.directoryAppeared(group), at: 1)
    _ = model.apply(.directoryScanned(group, mailboxes: observations, initial: true), at: 1)
    return model
  }

  static func tree(_ model: ModelState, rows: Int = 20) -> TreePaneState {
    var tree = TreePaneState()
    tree.update(.rebuild, directories: model.directories, visibleRows: rows)
    tree.update(.select(row: 0), directories: model.directories, visibleRows: rows)
    return tree
  }

  @Test func aRebuildListsTheBranchThenItsMailboxesByNameAndCountsThePresentOnes() {
    let model = Self.model(["b", "a", "c"])
    let tree = Self.tree(model)
    #expect(tree.rowCount == 4)
    #expect(tree.node(atRow: 0) == .directory(group))
    #expect((1...3).map { tree.node(atRow: $0)?.identifier } == ["a", "b", "c"])
    #expect(tree.node(atRow: 4) == nil)
    #expect(tree.presentCounts[group] == 3)
    #expect(tree.presentCount == 3)
  }

  @Test func aSelectedRowIsClampedAndAMoveScrollsItIntoView() {
    let model = Self.model(["a", "b", "c", "d", "e"])
    var tree = Self.tree(model, rows: 2)
    tree.update(.select(row: 99), directories: model.directories, visibleRows: 2)
    #expect(tree.selectedRow == 5)
    #expect(tree.selection == .mailbox(directory: group, identifier: "e"))
    #expect(tree.scroll == 4)
    tree.update(.move(by: -3), directories: model.directories, visibleRows: 2)
    #expect(tree.selectedRow == 2)
    #expect(tree.scroll == 2)
    tree.update(.select(row: -4), directories: model.directories, visibleRows: 2)
    #expect(tree.selection == .directory(group))
    #expect(tree.scroll == 0)
  }

  @Test func aFilterKeepsTheSelectedMailboxWhenItPassesAndClearingItShowsEveryMailbox() {
    let model = Self.model(["apple", "banana", "avocado"])
    var tree = Self.tree(model)
    tree.update(.select(row: 2), directories: model.directories, visibleRows: 20)
    #expect(tree.selection?.identifier == "avocado")
    tree.update(.filter(PaneFilter("^a")), directories: model.directories, visibleRows: 20)
    #expect(tree.rowCount == 3)
    #expect(tree.visibleCount(of: group) == 2)
    #expect(tree.selection?.identifier == "avocado")
    #expect(tree.selectedRow == 2)
    tree.update(.filter(PaneFilter("!^a")), directories: model.directories, visibleRows: 20)
    #expect(tree.node(atRow: 1)?.identifier == "banana")
    // The selected mailbox is filtered out: the row that held it is selected.
    #expect(tree.selectedRow == 1)
    tree.update(.filter(nil), directories: model.directories, visibleRows: 20)
    #expect(tree.rowCount == 4)
    #expect(tree.filter == nil)
  }

  /// A filter that hides the selected mailbox selects the first mailbox that passes, not the row
  /// that now stands where the selection was (here a device of the pairs' branch below).
  @Test func aFilterHidingTheSelectedMailboxSelectsTheFirstThatPasses() {
    let model = Self.model(["apple", "banana", "cherry", "date", "widget"])
    var tree = Self.tree(model)
    tree.update(.pairs(["demo"]), directories: model.directories, visibleRows: 20)
    tree.update(.select(row: 5), directories: model.directories, visibleRows: 20)
    #expect(tree.selection?.identifier == "widget")
    tree.update(.filter(PaneFilter("an")), directories: model.directories, visibleRows: 20)
    #expect(tree.selection == .mailbox(directory: group, identifier: "banana"))
    #expect(tree.selectedRow == 1)
    // Nothing passes: the selection goes to a row there is, as before.
    tree.update(.filter(nil), directories: model.directories, visibleRows: 20)
    tree.update(.select(row: 5), directories: model.directories, visibleRows: 20)
    tree.update(.filter(PaneFilter("zzz")), directories: model.directories, visibleRows: 20)
    #expect(tree.selection != nil && tree.selection?.identifier == nil)
  }

  @Test func aFoldedBranchHidesItsMailboxesAndKeepsItsRow() {
    let model = Self.model(["a", "b"])
    var tree = Self.tree(model)
    tree.update(.toggle(group), directories: model.directories, visibleRows: 20)
    #expect(tree.rowCount == 1)
    #expect(tree.collapsedDirectories == [group])
    #expect(tree.selection == .directory(group))
    tree.update(.toggle(group), directories: model.directories, visibleRows: 20)
    #expect(tree.rowCount == 3)
  }

  @Test func underRecencyAChangedMailboxMovesToTheFrontAndTheSelectionFollowsIt() {
    var model = Self.model(["a", "b", "c"])
    var tree = Self.tree(model)
    tree.update(.sort(.recency), directories: model.directories, visibleRows: 20)
    tree.update(.select(row: 1), directories: model.directories, visibleRows: 20)
    let selected = tree.selection
    #expect(selected?.identifier == "a")
    _ = model.apply(.mailboxChanged(directory: group, identifier: "b", archive(.integer(2))), at: 5_000)
    tree.update(
      .mailboxesChanged(directory: group, identifiers: ["b"]), directories: model.directories, visibleRows: 20
    )
    tree.update(.resync, directories: model.directories, visibleRows: 20)
    #expect(tree.node(atRow: 1)?.identifier == "b")
    #expect(tree.selection == selected)
    #expect(tree.selectedRow == 2)
  }

  @Test func presenceChangesMoveTheCountWithoutACountOfTheDirectory() {
    let model = Self.model(["a"])
    var tree = Self.tree(model)
    tree.update(.presenceChanged(directory: group, by: -1), directories: model.directories, visibleRows: 20)
    #expect(tree.presentCounts[group] == 0)
    tree.update(.rebuild, directories: model.directories, visibleRows: 20)
    #expect(tree.presentCounts[group] == 1)
  }

  @Test func anEmptyModelHasNoRowsAndNoSelection() {
    let tree = Self.tree(ModelState())
    #expect(tree.rowCount == 0)
    #expect(tree.selection == nil)
    #expect(tree.directoryPaths.isEmpty)
  }
}
