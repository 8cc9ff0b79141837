import ArchivedValues
import MailboxModel
import TerminalScreen
import WormholeVocabulary

/// The tree of directories and mailboxes: name, a one-line summary, size and age per row.
enum MailboxTreeView {
  static func draw(_ state: DashboardState, into screen: inout Screen, area: Rect) {
    let focused = state.focus == .mailboxes
    var details = "by \(state.treePane.sort.rawValue)"
    if let filter = state.treePane.filter {
      details += "  /" + DisplayText.escaped(filter.text)
      if filter.undecidedCount > 0 { details += " (\(filter.undecidedCount) hidden)" }
    }
    DashboardView.title("Mailboxes", details: details, focused: focused, into: &screen, area: area)
    let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
    screen.fill(body, role: "list")
    if state.treePane.rowCount == 0 {
      screen.write(
        " no wormhole directory yet", row: body.y, column: body.x, limit: body.width, role: "list.dim")
      screen.write(
        " (p passes a message)", row: body.y + 1, column: body.x, limit: body.width, role: "list.dim")
      return
    }
    // The name column fits the longest visible name, up to half the pane.
    var nameWidth = 6
    let nodes = state.treePane.nodes(fromRow: state.treePane.scroll, count: body.height)
    for node in nodes {
      guard let identifier = node.identifier ?? node.remoteIdentifier else { continue }
      nameWidth = max(nameWidth, TerminalWidth.columns(of: identifier.displayField))
    }
    nameWidth = min(nameWidth, max(body.width / 3, 6))
    for (offset, node) in nodes.enumerated() {
      let row = state.treePane.scroll + offset
      let y = body.y + offset
      let selected = row == state.treePane.selectedRow
      switch node {
      case .directory(let path): drawBranch(path, state: state, into: &screen, row: y, area: body)
      case .mailbox(let directory, let identifier):
        guard let mailbox = state.model.mailbox(identifier, in: directory) else { break }
        drawMailbox(mailbox, state: state, nameWidth: nameWidth, into: &screen, row: y, area: body)
      case .remoteMailbox(let machine, let directory, let identifier):
        guard let mailbox = state.fleet.mailbox(identifier, in: directory, machine: machine) else { break }
        // One level deeper than a local mailbox: under its machine and directory.
        drawMailbox(
          mailbox, state: state, nameWidth: nameWidth, into: &screen, row: y,
          area: Rect(x: body.x + 2, y: body.y, width: max(body.width - 2, 0), height: body.height))
      case .machine, .remoteDirectory:
        FleetTreeRowView.draw(node, state: state, into: &screen, row: y, area: body)
      case .pairs, .pair, .device: PairTreeRowView.draw(node, state: state, into: &screen, row: y, area: body)
      case .peers, .peerService, .peer:
        PeerTreeRowView.draw(node, state: state, into: &screen, row: y, area: body)
      }
      if selected {
        screen.paint(
          Rect(x: body.x, y: y, width: body.width, height: 1),
          role: focused ? "list.selected" : "list.selected.unfocused")
      }
    }
  }

  private static func drawBranch(
    _ path: FileName, state: DashboardState, into screen: inout Screen, row: Int, area: Rect
  ) {
    let collapsed = state.treePane.collapsedDirectories.contains(path)
    let directory = state.model.directories[path]
    var marks = ""
    if directory?.isPolled == true { marks += " polled" }
    if directory?.error != nil { marks += " error" }
    // A device set's group with no mailbox found in it: a branch of its own that says so.
    var count =
      state.treePane.isEmptyGroup(path, in: state.model.directories)
      ? "no mailbox" : "\(state.treePane.presentCounts[path] ?? 0)"
    // Unreadable mailboxes (a FIFO, a link) are on disk but not present: counted apart.
    if let unreadable = directory?.unreadableCount, unreadable > 0 { count += " +\(unreadable) unreadable" }
    let right = marks + " " + count + " "
    let rightWidth = TerminalWidth.columns(of: right)
    var x = area.x
    x += screen.write(collapsed ? "▸ " : "▾ ", row: row, column: x, role: "list.branch")
    // Cut in the middle: directories of one app group often differ only at their end. A device
    // set's label leaves out whole parts of its middle, keeping the device and the group.
    let room = max(area.maxX - x - rightWidth, 0)
    let name = DisplayText.name(state.displayPath(path))
    let shown =
      state.deviceSetLabels?.label(for: path) != nil
      ? Formatting.labelTruncated(name, toColumns: room) : Formatting.middleTruncated(name, toColumns: room)
    screen.write(shown, row: row, column: x, limit: room, role: "list.branch")
    let role: StyleRole =
      directory?.error != nil ? "list.error" : directory?.isPolled == true ? "list.polled" : "list.branch"
    screen.write(right, row: row, column: max(area.maxX - rightWidth, x), limit: rightWidth, role: role)
  }

  static func drawMailbox(
    _ mailbox: Mailbox, state: DashboardState, nameWidth: Int, into screen: inout Screen, row: Int, area: Rect
  ) {
    let identifier = mailbox.identifier
    // A narrow pane keeps the summary and the age, and leaves the size to the contents pane.
    let sizeWidth = area.width < 44 ? 0 : 9
    let ageWidth = 4
    let summaryWidth = max(area.width - 2 - nameWidth - 1 - sizeWidth - ageWidth - 1, 0)
    let recent =
      state.now - mailbox.lastChange < DashboardState.highlightMilliseconds && mailbox.lastChange > 0
    let base: StyleRole =
      mailbox.error != nil ? "list.error" : recent ? "list.changed" : mailbox.isPresent ? "list" : "list.dim"
    var x = area.x + 2
    let name = Formatting.middleTruncated(identifier.displayField, toColumns: nameWidth)
    screen.write(Formatting.padded(name, nameWidth), row: row, column: x, role: base)
    x += nameWidth + 1
    let summary: String
    if let error = mailbox.error {
      summary = "unreadable: " + DisplayText.escaped(error)
    } else if let current = mailbox.current {
      // Summarized by the watcher as it read the file; cut to the row here.
      summary = current.summary
    } else {
      summary = "cleared"
    }
    screen.write(
      Formatting.padded(summary, summaryWidth), row: row, column: x, limit: summaryWidth, role: base)
    x += summaryWidth
    if sizeWidth > 0 {
      let size = mailbox.current.map { Formatting.size($0.size) } ?? ""
      screen.write(
        String(repeating: " ", count: max(sizeWidth - TerminalWidth.columns(of: size), 0)) + size, row: row,
        column: x, limit: sizeWidth, role: base)
      x += sizeWidth
    }
    let age = mailbox.lastChange > 0 ? Formatting.age(mailbox.lastChange, now: state.now) : ""
    screen.write(
      String(repeating: " ", count: max(ageWidth + 1 - age.count, 0)) + age, row: row, column: x, role: base)
  }
}
