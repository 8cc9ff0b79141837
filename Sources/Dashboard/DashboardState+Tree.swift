import MailboxModel
import WormholeVocabulary

extension DashboardState {
  /// The identifiers of `directory` the tree shows, in order (filtered when a filter is set).
  func visibleIdentifiers(of directory: FileName) -> [FileName] {
    if mailboxFilter != nil { return filteredIdentifiers[directory] ?? [] }
    return orders[directory]?.identifiers ?? []
  }

  /// How many mailboxes of `directory` the tree shows.
  public func visibleCount(of directory: FileName) -> Int {
    if mailboxFilter != nil { return filteredIdentifiers[directory]?.count ?? 0 }
    return orders[directory]?.count ?? 0
  }

  /// Rows of the tree: a branch row per directory and its mailboxes when expanded.
  public var treeRowCount: Int {
    directoryPaths.reduce(0) { $0 + 1 + (collapsedDirectories.contains($1) ? 0 : visibleCount(of: $1)) }
  }

  /// The node shown on `row`, in O(branches).
  public func node(atRow row: Int) -> TreeNodeID? {
    guard row >= 0 else { return nil }
    var start = 0
    for path in directoryPaths {
      if row == start { return .directory(path) }
      let count = collapsedDirectories.contains(path) ? 0 : visibleCount(of: path)
      if row <= start + count {
        return .mailbox(directory: path, identifier: visibleIdentifiers(of: path)[row - start - 1])
      }
      start += 1 + count
    }
    return nil
  }

  /// The row showing `node`, if it is shown.
  func row(of node: TreeNodeID) -> Int? {
    var start = 0
    for path in directoryPaths {
      let count = collapsedDirectories.contains(path) ? 0 : visibleCount(of: path)
      if path == node.directory {
        guard let identifier = node.identifier else { return start }
        guard count > 0 else { return nil }
        if mailboxFilter != nil {
          return filteredIdentifiers[path]?.firstIndex(of: identifier).map {
            start + 1 + $0
          }
        }
        guard let directory = model.directories[path],
          let index = orders[path]?.index(of: identifier, in: directory)
        else { return nil }
        return start + 1 + index
      }
      start += 1 + count
    }
    return nil
  }

  /// The selected mailbox, when a mailbox is selected.
  public var selectedMailbox: Mailbox? {
    guard case .mailbox(let directory, let identifier)? = selection else { return nil }
    return model.mailbox(identifier, in: directory)
  }

  /// The directory of the selection, when something is selected.
  public var selectedDirectory: FileName? { selection?.directory }

  /// Sorts every branch again and refilters: at start, on a new sort order, on a new filter.
  mutating func rebuildTree() {
    directoryPaths = model.directories.keys.sorted()
    orders = [:]
    presentCounts = [:]
    for path in directoryPaths {
      if let directory = model.directories[path] {
        orders[path] = MailboxOrder(sort: sort, directory: directory)
        presentCounts[path] = directory.presentCount
      }
    }
    refilter()
  }

  mutating func refilter() {
    filteredIdentifiers = [:]
    guard var filter = mailboxFilter else { return }
    filter.beginPass()
    for path in directoryPaths {
      filteredIdentifiers[path] = (orders[path]?.identifiers ?? []).filter { filter.admits($0.lossyText) }
    }
    mailboxFilter = filter
  }

  /// Keeps the tree's order after mailboxes of `directory` appeared or changed.
  mutating func treeChanged(directory path: FileName, identifiers: [FileName]) {
    guard let directory = model.directories[path] else { return }
    if orders[path] == nil {
      rebuildTree()
      return
    }
    for identifier in identifiers { orders[path]?.update(identifier, in: directory) }
    if var filter = mailboxFilter {
      // A filter that left names undecided filters the whole tree again, so its counts stay true.
      guard filter.undecidedCount == 0 else {
        refilter()
        return
      }
      filter.continuePass()
      filteredIdentifiers[path] = (orders[path]?.identifiers ?? []).filter { filter.admits($0.lossyText) }
      mailboxFilter = filter
    }
  }

  /// Selects the node on `row` (clamped) and scrolls it into view.
  mutating func selectRow(_ row: Int) {
    let count = treeRowCount
    guard count > 0 else {
      selection = nil
      selectedRow = 0
      treeScroll = 0
      return
    }
    let clamped = min(max(row, 0), count - 1)
    let previous = selection
    selection = node(atRow: clamped)
    selectedRow = clamped
    if previous != selection { resetContents() }
    scrollTreeToSelection()
  }

  /// Finds the selected node's row again after the tree changed; if it is gone, the row that
  /// held it is selected.
  mutating func resyncSelection() {
    if let selection, let row = row(of: selection) {
      selectedRow = row
      scrollTreeToSelection()
    } else {
      selectRow(selectedRow)
    }
  }

  mutating func scrollTreeToSelection() {
    let visible = max(DashboardLayout(width: width, height: height).tree.height - 1, 1)
    if selectedRow < treeScroll { treeScroll = selectedRow }
    if selectedRow >= treeScroll + visible { treeScroll = selectedRow - visible + 1 }
    treeScroll = max(min(treeScroll, max(treeRowCount - visible, 0)), 0)
  }

  mutating func resetContents() {
    contentsCursor = 0
    contentsScroll = 0
    historyCursor = 0
    collapsedPaths = []
    markedSerial = nil
  }
}
