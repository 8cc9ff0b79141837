import Dashboard
import MailboxModel
import Testing
import WormholeVocabulary

/// The rows a frame draws, asked for at once (`nodes(fromRow:count:)`, one walk of the
/// branches instead of one per row): every window of the tree is the same rows, in order, as
/// the tree listed by hand, across folded and unfolded directories, pairs and machines.
@Suite struct TreeRowWindowTests {
  @Test func everyWindowOfRowsIsTheTreesRowsInOrder() {
    let other: FileName = "/w/AppGroup/group.other"
    let folded: FileName = "/w/AppGroup/group.folded"
    var model = ModelState()
    for (path, names) in [(group, ["a", "b", "c"]), (other, ["x"]), (folded, ["f1", "f2"])] {
      let observations = Dictionary(uniqueKeysWithValues: names.map { (FileName($0), archive(.integer(1))) })
      _ = model.apply(.directoryAppeared(path), at: 1)
      _ = model.apply(.directoryScanned(path, mailboxes: observations, initial: true), at: 1)
    }
    let directories = model.directories
    var tree = TreePaneState()
    tree.update(.rebuild, directories: directories, visibleRows: 10)
    tree.update(.toggle(folded), directories: directories, visibleRows: 10)
    tree.update(.pairs(["desk", "lab"]), directories: directories, visibleRows: 10)
    tree.update(.togglePairs(.pair("lab")), directories: directories, visibleRows: 10)
    let remote: FileName = "/srv/ci"
    tree.update(
      .fleet([
        .machine("ci-3"), .remoteDirectory(machine: "ci-3", path: remote),
        .remoteMailbox(machine: "ci-3", directory: remote, identifier: "r1"), .machine("laptop"),
      ]), directories: directories, visibleRows: 10)
    let rows: [TreeNodeID] = [
      .directory(group), .mailbox(directory: group, identifier: "a"),
      .mailbox(directory: group, identifier: "b"),
      .mailbox(directory: group, identifier: "c"), .directory(folded), .directory(other),
      .mailbox(directory: other, identifier: "x"), .pairs, .pair("desk"), .device(pair: "desk", role: .phone),
      .device(pair: "desk", role: .watch), .pair("lab"), .machine("ci-3"),
      .remoteDirectory(machine: "ci-3", path: remote),
      .remoteMailbox(machine: "ci-3", directory: remote, identifier: "r1"), .machine("laptop"),
    ]
    #expect(tree.rowCount == rows.count)
    for first in 0...rows.count {
      for count in 0...(rows.count + 2) {
        let expected = Array(rows[first..<min(first + count, rows.count)])
        #expect(tree.nodes(fromRow: first, count: count) == expected, "rows \(first) +\(count)")
      }
      #expect(tree.node(atRow: first) == (first < rows.count ? rows[first] : nil))
    }
    #expect(tree.nodes(fromRow: -1, count: 3).isEmpty)
  }
}
