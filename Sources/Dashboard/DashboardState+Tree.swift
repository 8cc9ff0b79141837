import MailboxModel
import WormholeVocabulary

/// The tree pane inside the dashboard: its messages get the model's directories and the pane's
/// height, and a new selection resets the contents pane.
extension DashboardState {
  /// Rows the tree pane shows at the current size.
  var treeVisibleRows: Int { max(DashboardLayout(width: width, height: height).tree.height - 1, 1) }

  /// Applies `message` to the tree pane; when the selection moved to another node, the contents
  /// pane starts again at its top.
  mutating func updateTree(_ message: TreePaneState.Message) {
    let before = treePane.selection
    treePane.update(message, directories: model.directories, visibleRows: treeVisibleRows)
    if treePane.selection != before { updateContents(.reset) }
  }

  public var sort: SortOrder { treePane.sort }
  /// Mailboxes holding a message, per directory.
  public var presentCounts: [FileName: Int] { treePane.presentCounts }
  /// Mailboxes holding a message in every directory.
  public var presentCount: Int { treePane.presentCount }
  public var mailboxFilter: PaneFilter? { treePane.filter }
  public var selection: TreeNodeID? { treePane.selection }
  public var selectedRow: Int { treePane.selectedRow }
  /// Rows of the tree: a branch row per directory and its mailboxes when expanded.
  public var treeRowCount: Int { treePane.rowCount }

  /// The node shown on `row` of the tree.
  public func node(atRow row: Int) -> TreeNodeID? { treePane.node(atRow: row) }

  /// The selected mailbox, when a mailbox is selected.
  public var selectedMailbox: Mailbox? {
    switch treePane.selection {
    case .mailbox(let directory, let identifier)?: return model.mailbox(identifier, in: directory)
    case .remoteMailbox(let machine, let directory, let identifier)?:
      return fleet.mailbox(identifier, in: directory, machine: machine)
    default: return nil
    }
  }

  /// The directory of the selection, when something is selected.
  public var selectedDirectory: FileName? { treePane.selection?.directory }
}
