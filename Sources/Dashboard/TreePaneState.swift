import MailboxModel
import WormholeVocabulary

/// The mailbox tree's own state: its order, folds, filter, selection and scroll, and the counts
/// and orders it keeps so a frame costs only its visible rows.
///
/// It holds no model. Each ``update(_:directories:visibleRows:)`` takes the model's directories
/// and the rows the pane shows as input and does no I/O, so the same state can follow the live
/// model or a recording.
public struct TreePaneState: Sendable {
  /// What changes the tree.
  public enum Message: Sendable {
    /// Sort every branch again and refilter: at start, after directories appeared or vanished.
    case rebuild
    /// Mailboxes of a directory appeared, changed or vanished: each moves to its place.
    case mailboxesChanged(directory: FileName, identifiers: [FileName])
    /// A mailbox of the directory started (`+1`) or stopped (`-1`) counting as present.
    case presenceChanged(directory: FileName, by: Int)
    /// Selects the node on a row (clamped) and scrolls it into view.
    case select(row: Int)
    /// Moves the selection by rows (negative: up).
    case move(by: Int)
    /// Selects the last row.
    case selectLast
    /// Finds the selected node's row again after the tree changed; if it is gone, the row that
    /// held it is selected.
    case resync
    /// Folds or unfolds a directory's branch.
    case toggle(FileName)
    /// Shows only the mailboxes whose identifier passes the filter (`nil`: every mailbox). A
    /// selected mailbox it hides gives the selection to the first local mailbox that passes.
    case filter(PaneFilter?)
    /// Orders every branch by a sort order.
    case sort(SortOrder)
    /// Keeps the selected row in view (after the pane's height changed).
    case scrollToSelection
    /// The pairs of simulated devices are these, by name, sorted: their branch follows the
    /// directories (none when there is no pair).
    case pairs([String])
    /// Folds or unfolds the pairs' branch (``TreeNodeID/pairs``) or a pair's devices
    /// (``TreeNodeID/pair(_:)``); other nodes are left alone.
    case togglePairs(TreeNodeID)
    /// The running peers' nodes are these, in order: per service type its
    /// ``TreeNodeID/peerService(_:)`` then its ``TreeNodeID/peer(service:id:)`` nodes. Their
    /// branch (``TreeNodeID/peers``) follows the pairs' (none when no peer runs).
    case peers([TreeNodeID])
    /// The fleet's nodes are these, in order: per machine its ``TreeNodeID/machine(_:)``, then
    /// per directory its ``TreeNodeID/remoteDirectory(machine:path:)`` and its mailboxes. Their
    /// branch follows the peers' (none without `--broker`).
    case fleet([TreeNodeID])
    /// Folds or unfolds a machine or a remote directory; other nodes are left alone.
    case toggleFleet(TreeNodeID)
    /// The directories are named by these labels (a simulator device set's, `nil`: by path):
    /// their branches are ordered as ``DeviceSetLabels/ordered(_:)`` orders them.
    case labels(DeviceSetLabels?)
  }

  public private(set) var sort: SortOrder
  public private(set) var collapsedDirectories: Set<FileName> = []
  /// Directory paths, sorted (by label on a device set, else by path): the branches.
  public private(set) var directoryPaths: [FileName] = []
  /// The labels the directories are named and ordered by, on a device set.
  public private(set) var labels: DeviceSetLabels?
  /// The pairs' names, sorted: the rows of the pairs' branch, each followed by its two devices.
  public private(set) var pairNames: [String] = []
  /// The pairs' nodes folded: ``TreeNodeID/pairs`` (the whole branch) and pairs (their devices).
  public private(set) var collapsedPairNodes: Set<TreeNodeID> = []
  /// The running peers' service and peer nodes, in order, unfolded (``Message/peers(_:)``).
  public private(set) var peerNodes: [TreeNodeID] = []
  /// The fleet's nodes, in order, unfolded (``Message/fleet(_:)``).
  public internal(set) var fleetNodes: [TreeNodeID] = []
  /// The fleet's machines and remote directories folded.
  public internal(set) var collapsedFleetNodes: Set<TreeNodeID> = []
  /// The fleet's nodes as shown (folds applied) and each one's row among them: kept, so a frame
  /// over thousands of remote mailboxes costs its visible rows.
  var shownFleetNodes: [TreeNodeID] = []
  var shownFleetRows: [TreeNodeID: Int] = [:]
  /// Whether each remote identifier passes ``filter``, decided once per filter (TreePaneState+Fleet).
  var fleetFilterDecisions: [FileName: Bool] = [:]
  private var orders: [FileName: MailboxOrder] = [:]
  /// Mailboxes holding a message, per directory: counted when a directory changes, not per frame.
  public private(set) var presentCounts: [FileName: Int] = [:]
  public internal(set) var filter: PaneFilter?
  /// Per directory, the identifiers passing ``filter`` in tree order.
  private var filteredIdentifiers: [FileName: [FileName]] = [:]
  public private(set) var selection: TreeNodeID?
  public private(set) var selectedRow = 0
  /// The first row shown.
  public private(set) var scroll = 0

  /// An empty tree, ordered by `sort`.
  public init(sort: SortOrder = .name) {
    self.sort = sort
  }

  /// Mailboxes holding a message in every directory.
  public var presentCount: Int { presentCounts.values.reduce(0, +) }

  /// Applies `message` to the tree of `directories`, `visibleRows` rows high.
  public mutating func update(
    _ message: Message, directories: [FileName: DirectoryState], visibleRows: Int
  ) {
    switch message {
    case .rebuild: rebuild(directories)
    case .mailboxesChanged(let path, let identifiers):
      guard let directory = directories[path] else { return }
      guard orders[path] != nil else {
        rebuild(directories)
        return
      }
      for identifier in identifiers { orders[path]?.update(identifier, in: directory) }
      if let filter {
        // A filter that left names undecided filters the whole tree again, so its counts stay true.
        guard filter.undecidedCount == 0 else {
          refilter()
          return
        }
        self.filter?.continuePass()
        filteredIdentifiers[path] = passing(orders[path]?.identifiers ?? [])
      }
    case .presenceChanged(let path, let delta): presentCounts[path, default: 0] += delta
    case .select(let row): select(row, visibleRows: visibleRows)
    case .move(let delta): select(selectedRow + delta, visibleRows: visibleRows)
    case .selectLast: select(rowCount - 1, visibleRows: visibleRows)
    case .resync: resync(directories, visibleRows: visibleRows)
    case .toggle(let path):
      if collapsedDirectories.contains(path) {
        collapsedDirectories.remove(path)
      } else {
        collapsedDirectories.insert(path)
      }
      resync(directories, visibleRows: visibleRows)
    case .filter(let filter):
      self.filter = filter
      refilter()
      // A mailbox the filter hides gives the selection to the first local mailbox that passes,
      // not to whatever row now stands where it was (the pairs' branch, a directory).
      if filter != nil, selection?.identifier != nil || selection?.remoteIdentifier != nil,
        let selection, row(of: selection, in: directories) == nil, let first = firstMailboxRow
      {
        select(first, visibleRows: visibleRows)
      } else {
        resync(directories, visibleRows: visibleRows)
      }
    case .sort(let sort):
      self.sort = sort
      rebuild(directories)
      resync(directories, visibleRows: visibleRows)
    case .scrollToSelection: scrollToSelection(visibleRows: visibleRows)
    case .pairs(let names):
      guard names != pairNames else { return }
      pairNames = names
      collapsedPairNodes = collapsedPairNodes.filter { $0.pairName.map(names.contains) ?? true }
      resync(directories, visibleRows: visibleRows)
    case .togglePairs(let node):
      switch node {
      case .pairs, .pair, .peers, .peerService: break
      case .directory, .mailbox, .device, .peer, .machine, .remoteDirectory, .remoteMailbox: return
      }
      if collapsedPairNodes.remove(node) == nil { collapsedPairNodes.insert(node) }
      resync(directories, visibleRows: visibleRows)
    case .peers(let nodes):
      guard nodes != peerNodes else { return }
      peerNodes = nodes
      collapsedPairNodes = collapsedPairNodes.filter {
        guard case .peerService = $0 else { return true }
        return nodes.contains($0)
      }
      resync(directories, visibleRows: visibleRows)
    case .fleet(let nodes):
      fleetNodes = nodes
      refreshShownFleet()
      resync(directories, visibleRows: visibleRows)
    case .toggleFleet(let node):
      guard toggleFleetFold(node) else { return }
      resync(directories, visibleRows: visibleRows)
    case .labels(let labels):
      guard labels != self.labels else { return }
      self.labels = labels
      rebuild(directories)
      resync(directories, visibleRows: visibleRows)
    }
  }

  // MARK: Reading

  /// The identifiers of `directory` the tree shows, in order (filtered when a filter is set).
  func visibleIdentifiers(of directory: FileName) -> [FileName] {
    if filter != nil { return filteredIdentifiers[directory] ?? [] }
    return orders[directory]?.identifiers ?? []
  }

  /// Whether `path` is a branch only because it is a device set's group container in which no
  /// mailbox was found: the model has no directory there.
  public func isEmptyGroup(_ path: FileName, in directories: [FileName: DirectoryState]) -> Bool {
    directories[path] == nil && labels?.label(for: path) != nil
  }

  /// How many mailboxes of `directory` the tree shows.
  public func visibleCount(of directory: FileName) -> Int {
    if filter != nil { return filteredIdentifiers[directory]?.count ?? 0 }
    return orders[directory]?.count ?? 0
  }

  /// Rows of the tree: a branch row per directory and its mailboxes when expanded, then the
  /// pairs' branch.
  public var rowCount: Int { directoryRowCount + pairRowCount + shownFleetNodes.count }

  /// Rows of the directories' branches.
  private var directoryRowCount: Int {
    directoryPaths.reduce(0) { $0 + 1 + (collapsedDirectories.contains($1) ? 0 : visibleCount(of: $1)) }
  }

  /// Rows of the pairs' branch: its own, then (unless folded) per pair a row and one per
  /// device (unless the pair is folded).
  private var pairRowCount: Int {
    var count = 0
    if !pairNames.isEmpty {
      count =
        collapsedPairNodes.contains(.pairs)
        ? 1
        : pairNames.reduce(1) { $0 + 1 + (collapsedPairNodes.contains(.pair($1)) ? 0 : Self.roles.count) }
    }
    return count + shownPeerNodes.count
  }

  /// The peers' nodes in row order, as shown (folds applied): the branch, then per service type
  /// its row and (unless folded) its peers.
  private var shownPeerNodes: [TreeNodeID] {
    guard !peerNodes.isEmpty else { return [] }
    guard !collapsedPairNodes.contains(.peers) else { return [.peers] }
    var nodes: [TreeNodeID] = [.peers]
    var folded = false
    for node in peerNodes {
      if case .peerService = node {
        folded = collapsedPairNodes.contains(node)
        nodes.append(node)
      } else if !folded {
        nodes.append(node)
      }
    }
    return nodes
  }

  private static let roles = PairSnapshot.Role.allCases

  /// The pairs' nodes in row order, as shown (folds applied), in O(pairs).
  private var shownPairNodes: [TreeNodeID] {
    guard !pairNames.isEmpty else { return shownPeerNodes }
    guard !collapsedPairNodes.contains(.pairs) else { return [.pairs] + shownPeerNodes }
    var nodes: [TreeNodeID] = [.pairs]
    for name in pairNames {
      nodes.append(.pair(name))
      if !collapsedPairNodes.contains(.pair(name)) {
        nodes += Self.roles.map { .device(pair: name, role: $0) }
      }
    }
    return nodes + shownPeerNodes
  }

  /// The row of a pairs' node, counted from the pairs' branch row, when it is shown.
  private func pairRow(of node: TreeNodeID) -> Int? {
    shownPairNodes.firstIndex(of: node)
  }

  /// The row of the first mailbox shown (local directories only), in O(directories); `nil` when
  /// no directory shows one.
  public var firstMailboxRow: Int? {
    var start = 0
    for path in directoryPaths {
      let shown = collapsedDirectories.contains(path) ? 0 : visibleCount(of: path)
      if shown > 0 { return start + 1 }
      start += 1
    }
    return nil
  }

  /// The node shown on `row`, in O(branches).
  public func node(atRow row: Int) -> TreeNodeID? { nodes(fromRow: row, count: 1).first }

  /// The nodes shown on `count` rows from `first` on (fewer where the tree ends), in one walk of
  /// the branches: a frame asks for its visible rows at once, so that it costs O(branches + rows),
  /// not O(branches) per row (200 device directories of 100 pairs made each frame 60 walks).
  public func nodes(fromRow first: Int, count: Int) -> [TreeNodeID] {
    guard first >= 0, count > 0 else { return [] }
    let end = first + count
    var nodes: [TreeNodeID] = []
    var start = 0
    for path in directoryPaths {
      guard start < end else { return nodes }
      let shown = collapsedDirectories.contains(path) ? 0 : visibleCount(of: path)
      // The branch is on row `start`, its mailboxes on the `shown` rows after it.
      if start + shown >= first {
        if start >= first { nodes.append(.directory(path)) }
        let from = max(first - start - 1, 0)
        let to = min(end - start - 1, shown)
        if from < to {
          for identifier in visibleIdentifiers(of: path)[from..<to] {
            nodes.append(.mailbox(directory: path, identifier: identifier))
          }
        }
      }
      start += 1 + shown
    }
    let rest = max(first - start, 0)
    guard start + rest < end else { return nodes }
    let pairNodes = pairRowCount > 0 ? shownPairNodes : []
    for index in rest..<(end - start) {
      if index < pairNodes.count {
        nodes.append(pairNodes[index])
      } else if shownFleetNodes.indices.contains(index - pairNodes.count) {
        nodes.append(shownFleetNodes[index - pairNodes.count])
      } else {
        break
      }
    }
    return nodes
  }

  /// The row showing `node`, if it is shown.
  func row(of node: TreeNodeID, in directories: [FileName: DirectoryState]) -> Int? {
    if node.machineName != nil {
      return shownFleetRows[node].map { directoryRowCount + pairRowCount + $0 }
    }
    guard let nodeDirectory = node.directory else { return pairRow(of: node).map { directoryRowCount + $0 } }
    var start = 0
    for path in directoryPaths {
      let count = collapsedDirectories.contains(path) ? 0 : visibleCount(of: path)
      if path == nodeDirectory {
        guard let identifier = node.identifier else { return start }
        guard count > 0 else { return nil }
        if filter != nil {
          return filteredIdentifiers[path]?.firstIndex(of: identifier).map {
            start + 1 + $0
          }
        }
        guard let directory = directories[path],
          let index = orders[path]?.index(of: identifier, in: directory)
        else { return nil }
        return start + 1 + index
      }
      start += 1 + count
    }
    return nil
  }

  // MARK: Changing

  /// Sorts every branch again and refilters.
  private mutating func rebuild(_ directories: [FileName: DirectoryState]) {
    if let labels {
      // A group whose container holds no mailbox yet is a branch too, empty (``isEmptyGroup(_:)``).
      directoryPaths = labels.ordered(Array(directories.keys) + labels.containersWithout(directories.keys))
    } else {
      directoryPaths = directories.keys.sorted()
    }
    orders = [:]
    presentCounts = [:]
    for path in directoryPaths {
      if let directory = directories[path] {
        orders[path] = MailboxOrder(sort: sort, directory: directory)
        presentCounts[path] = directory.presentCount
      }
    }
    refilter()
  }

  private mutating func refilter() {
    filteredIdentifiers = [:]
    // The fleet's mailboxes are matched in the same pass, so its counts cover both.
    defer { refilterFleet() }
    guard filter != nil else { return }
    filter?.beginPass()
    for path in directoryPaths {
      filteredIdentifiers[path] = passing(orders[path]?.identifiers ?? [])
    }
  }

  /// The identifiers passing ``filter``, in their order, as part of its current pass (begun or
  /// continued by the caller): the one place the tree matches it.
  private mutating func passing(_ identifiers: [FileName]) -> [FileName] {
    guard var filter else { return identifiers }
    let passed = identifiers.filter { filter.admits($0.lossyText) }
    self.filter = filter
    return passed
  }

  private mutating func select(_ row: Int, visibleRows: Int) {
    let count = rowCount
    guard count > 0 else {
      selection = nil
      selectedRow = 0
      scroll = 0
      return
    }
    let clamped = min(max(row, 0), count - 1)
    selection = node(atRow: clamped)
    selectedRow = clamped
    scrollToSelection(visibleRows: visibleRows)
  }

  private mutating func resync(_ directories: [FileName: DirectoryState], visibleRows: Int) {
    if let selection, let row = row(of: selection, in: directories) {
      selectedRow = row
      scrollToSelection(visibleRows: visibleRows)
    } else {
      select(selectedRow, visibleRows: visibleRows)
    }
  }

  private mutating func scrollToSelection(visibleRows: Int) {
    let visible = max(visibleRows, 1)
    if selectedRow < scroll { scroll = selectedRow }
    if selectedRow >= scroll + visible { scroll = selectedRow - visible + 1 }
    scroll = max(min(scroll, max(rowCount - visible, 0)), 0)
  }
}
