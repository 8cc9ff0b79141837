import KeyedArchive
import MailboxModel
import TerminalScreen
import WormholeVocabulary

/// The merged traffic stream, newest at the bottom, following it unless an entry is selected.
enum TrafficPaneView {
  static func draw(_ state: DashboardState, into screen: inout Screen, area: Rect) {
    let focused = state.focus == .traffic
    var details = "\(state.rate.perSecond)/s " + Sparkline.text(state.rate.counts.map(Double.init), width: 20)
    if let filter = state.trafficFilter { details += "  /" + DisplayText.escaped(filter.text) }
    if state.trafficSelection != nil { details += "  (G follows)" }
    DashboardView.title("Traffic", details: details, focused: focused, into: &screen, area: area)
    if let frozen = state.frozen {
      let badge = " \(frozen.newCount) new "
      let x = area.maxX - TerminalWidth.columns(of: badge) - 1
      if x > area.x + 10 { screen.write(badge, row: area.y, column: x, role: "traffic.badge") }
    }
    guard area.height > 2 else { return }
    let columns = Columns(width: area.width)
    let headings = Rect(x: area.x, y: area.y + 1, width: area.width, height: 1)
    screen.fill(headings, role: "traffic.header")
    columns.draw(
      [
        .time: "time", .kind: "kind", .identifier: "identifier", .type: "type", .size: "size",
        .sender: "sender",
        .outcome: "outcome",
      ], into: &screen, row: headings.y, x: area.x, role: "traffic.header")
    let body = Rect(x: area.x, y: area.y + 2, width: area.width, height: area.height - 2)
    screen.fill(body, role: "traffic")
    // Only the visible rows are looked at: the stream is in time order already.
    let filtered = state.trafficFilter != nil
    let total = filtered ? state.filteredTraffic.count : state.model.traffic.count
    guard total > 0 else {
      screen.write(" no traffic yet", row: body.y, column: body.x, limit: body.width, role: "list.dim")
      return
    }
    var last = total - 1
    if let selected = state.trafficSelection {
      let index: Int?
      if filtered {
        index = state.filteredTraffic.lastIndex(of: selected)
      } else {
        index = state.model.traffic.lastIndex { $0.id == selected }
      }
      if let index { last = max(index, min(total - 1, index + body.height / 2)) }
    }
    let first = max(last - body.height + 1, 0)
    for (offset, index) in (first...last).enumerated() {
      let entry: TrafficEntry?
      if filtered {
        entry = state.model.trafficEntry(state.filteredTraffic[index])
      } else {
        entry = state.model.traffic[index]
      }
      guard let entry else { continue }
      let y = body.y + offset
      let role = self.role(of: entry)
      let outcome = entry.error == nil ? "ok" : "FAILED"
      var identifier = entry.identifier.displayField
      if let error = entry.error { identifier += " (" + DisplayText.escaped(error) + ")" }
      columns.draw(
        [
          .time: Formatting.clock(entry.milliseconds), .kind: DisplayText.field(kindName(entry.kind)),
          .identifier: identifier,
          .type: entry.transiting.map(DisplayText.field) ?? "-",
          .size: Formatting.size(entry.size), .sender: entry.sender.map(DisplayText.field) ?? "-",
          .outcome: outcome,
        ], into: &screen, row: y, x: body.x, role: role)
      if entry.id == state.trafficSelection {
        screen.paint(
          Rect(x: body.x, y: y, width: body.width, height: 1),
          role: focused ? "list.selected" : "list.selected.unfocused")
      }
    }
  }

  static func kindName(_ kind: TrafficEntryKind) -> String {
    kind == .changedWithoutRecord ? "unrecorded" : kind.rawValue
  }

  static func role(of entry: TrafficEntry) -> StyleRole {
    if entry.error != nil { return "traffic.failed" }
    switch entry.kind {
    case .passed: return "traffic.passed"
    case .notification: return "traffic.notification"
    case .cleared, .clearedAll: return "traffic.cleared"
    case .replayed: return "traffic.replayed"
    case .changedWithoutRecord: return "traffic.unrecorded"
    default: return "traffic"  // a kind from a newer writer, shown as stored
    }
  }

  /// The columns that fit a pane width, most important first; the identifier takes what is
  /// left and the outcome the rest of the row.
  struct Columns {
    enum Column: CaseIterable { case time, kind, identifier, type, size, sender, outcome }
    var shown: [(column: Column, width: Int)] = []

    init(width: Int) {
      var chosen: [(Column, Int)] = [(.time, 12), (.kind, 12), (.identifier, 0)]
      var used = 12 + 12 + 3
      for (column, columnWidth) in [(Column.outcome, 7), (.size, 8), (.type, 16), (.sender, 12)]
      where width - used - columnWidth - 1 >= 12 {
        chosen.append((column, columnWidth))
        used += columnWidth + 1
      }
      let order = Column.allCases
      chosen.sort { order.firstIndex(of: $0.0) ?? 0 < order.firstIndex(of: $1.0) ?? 0 }
      let identifier = max(width - used - 1, 8)
      shown = chosen.map { ($0.0, $0.0 == .identifier ? identifier : $0.1) }
    }

    func draw(_ texts: [Column: String], into screen: inout Screen, row: Int, x: Int, role: StyleRole) {
      var column = x + 1
      for (index, item) in shown.enumerated() {
        let width = index == shown.count - 1 ? max(screen.width - column, 0) : item.width
        screen.write(texts[item.column] ?? "", row: row, column: column, limit: width, role: role)
        column += width + 1
        if column >= screen.width { break }
      }
    }
  }
}
