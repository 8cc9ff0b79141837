import ArchivedValues
import MailboxModel
import TerminalScreen
import WormholeVocabulary

/// The selected mailbox: a header, then the tree, JSON, hex, history or diff view.
enum ContentsPaneView {
  static func draw(_ state: DashboardState, into screen: inout Screen, area: Rect) {
    let focused = state.focus == .contents
    let views = ContentsView.allCases.map { $0 == state.contentsPane.view ? "[\($0.rawValue)]" : $0.rawValue }
      .joined(separator: " ")
    var title = "Contents"
    if let entry = state.selectedRouteEntry {
      title += " traffic entry \(entry.id)"
    } else if let identifier = state.selection?.identifier ?? state.selection?.remoteIdentifier {
      // The view tabs stay on screen: a long identifier is cut in its middle to leave them room.
      let room = area.width - TerminalWidth.columns(of: views) - TerminalWidth.columns(of: title) - 5
      title += " " + Formatting.middleTruncated(identifier.displayField, toColumns: max(room, 1))
    }
    DashboardView.title(title, details: views, focused: focused, into: &screen, area: area)
    guard area.height > 1 else { return }
    let header = Rect(x: area.x, y: area.y + 1, width: area.width, height: 1)
    screen.fill(header, role: "contents")
    let contents = state.contents
    let lines = contents.lines()
    drawHeader(state, contents: contents, lines: lines, into: &screen, area: header)
    let body = Rect(x: area.x, y: area.y + 2, width: area.width, height: area.height - 2)
    screen.fill(body, role: "contents")
    for offset in 0..<body.height {
      let index = state.contentsPane.scroll + offset
      guard lines.indices.contains(index) else { break }
      let line = lines[index]
      let y = body.y + offset
      var x = body.x + 1 + line.indent
      // Indentation that would leave less than half the pane for the text is cut, and said.
      if line.indent > (body.width - 1) / 2 {
        x = body.x + 1
        x += screen.write(
          "…(depth \(line.indent / 2)) ", row: y, column: x, limit: body.maxX - x, role: "list.dim")
      }
      for piece in line.pieces where x < body.maxX {
        x += screen.write(piece.text, row: y, column: x, limit: body.maxX - x, role: piece.role)
      }
      if focused && index == state.contentsPane.cursor {
        screen.paint(Rect(x: body.x, y: y, width: body.width, height: 1), role: "list.selected")
      }
    }
  }

  private static func drawHeader(
    _ state: DashboardState, contents: ContentsLines, lines: [ContentLine], into screen: inout Screen,
    area: Rect
  ) {
    guard state.selectedRouteEntry == nil, let mailbox = state.selectedMailbox else { return }
    var parts: [String] = []
    // Unreadable first: what follows is the last version that could be read, if any.
    if let error = mailbox.error { parts.append("unreadable: " + DisplayText.escaped(error)) }
    if let current = mailbox.current {
      parts.append(Formatting.size(current.size))
      let modified = current.modifiedNanoseconds / 1_000_000
      parts.append(
        "modified " + Formatting.time(modified, now: state.now) + " ("
          + Formatting.age(modified, now: state.now)
          + " ago)")
      if let sender = current.sender { parts.append("by " + DisplayText.field(sender)) }
    } else if mailbox.error == nil {
      parts.append("cleared")
    }
    // What the header must keep: the state, size, time and age; the sender and the version
    // count give way first, then the sparkline.
    let kept = parts.firstIndex { $0.hasPrefix("modified ") }.map { $0 + 1 } ?? parts.count
    let essential = TerminalWidth.columns(of: parts.prefix(kept).joined(separator: " · ")) + 2
    parts.append("\(mailbox.versionCount) version\(mailbox.versionCount == 1 ? "" : "s")")
    // The sparkline, when there is one, keeps the right end of the line, in what the essential
    // part leaves.
    var right = area.maxX
    if let series = contents.sparklineSeries(lines: lines) {
      let label = DisplayText.escaped(series.label)
      let text = " " + TerminalWidth.truncated(label, toColumns: 16) + " "
      let room = area.width - essential - TerminalWidth.columns(of: text) - 2
      let blocks = Sparkline.text(series.values, width: min(24, max(area.width / 3, 4), room))
      let width = TerminalWidth.columns(of: text) + TerminalWidth.columns(of: blocks) + 1
      if room >= 4 && width < area.width / 2 {
        right = area.maxX - width
        let x = right + screen.write(text, row: area.y, column: right, role: "contents.key")
        screen.write(blocks, row: area.y, column: x, role: "sparkline")
      }
    }
    screen.write(
      parts.joined(separator: " · "), row: area.y, column: area.x + 1, limit: max(right - area.x - 2, 0),
      role: "contents.key")
  }
}
