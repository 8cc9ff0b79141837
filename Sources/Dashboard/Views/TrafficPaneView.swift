import ArchivedValues
import MailboxModel
import TerminalScreen
import WormholeVocabulary

/// The merged traffic stream, newest at the bottom, following it unless an entry is selected.
enum TrafficPaneView {
  static func draw(_ state: DashboardState, into screen: inout Screen, area: Rect) {
    let focused = state.focus == .traffic
    var details = "\(state.rate.perSecond)/s " + Sparkline.text(state.rate.counts.map(Double.init), width: 20)
    if let filter = state.trafficPane.filter {
      details += "  /" + DisplayText.escaped(filter.text)
      if filter.undecidedCount > 0 { details += " (\(filter.undecidedCount) hidden)" }
    }
    if state.trafficPane.selection != nil { details += "  (G follows)" }
    DashboardView.title("Traffic", details: details, focused: focused, into: &screen, area: area)
    if let frozen = state.frozen {
      let badge = " \(frozen.newCount) new "
      let x = area.maxX - TerminalWidth.columns(of: badge) - 1
      if x > area.x + 10 { screen.write(badge, row: area.y, column: x, role: "traffic.badge") }
    }
    guard area.height > 2 else { return }
    let headings = Rect(x: area.x, y: area.y + 1, width: area.width, height: 1)
    screen.fill(headings, role: "traffic.header")
    let body = Rect(x: area.x, y: area.y + 2, width: area.width, height: area.height - 2)
    screen.fill(body, role: "traffic")
    // Only the visible rows are looked at: the stream is in time order already.
    let filtered = state.trafficPane.filter != nil
    let total = filtered ? state.trafficPane.filteredIdentifiers.count : state.model.traffic.count
    guard total > 0 else {
      Columns(width: area.width).drawHeadings(into: &screen, row: headings.y, x: area.x)
      let empty =
        filtered && !state.model.traffic.isEmpty ? " no traffic entry matches the filter" : " no traffic yet"
      screen.write(empty, row: body.y, column: body.x, limit: body.width, role: "list.dim")
      return
    }
    var last = total - 1
    if let selected = state.trafficPane.selection {
      let index: Int?
      if filtered {
        index = state.trafficPane.filteredIdentifiers.lastIndex(of: selected)
      } else {
        index = state.model.traffic.lastIndex { $0.id == selected }
      }
      if let index { last = max(index, min(total - 1, index + body.height / 2)) }
    }
    let first = max(last - body.height + 1, 0)
    let entries = (first...last).map { index -> TrafficEntry? in
      filtered
        ? state.model.trafficEntry(state.trafficPane.filteredIdentifiers[index]) : state.model.traffic[index]
    }
    // Session entries on screen make room for their devices (`device -> peer`); pushes and
    // deep links for the route they took.
    let columns = Columns(
      width: area.width, sessions: entries.contains { $0?.device != nil },
      routes: entries.contains { $0?.isRouted == true })
    columns.drawHeadings(into: &screen, row: headings.y, x: area.x)
    for (offset, entry) in entries.enumerated() {
      guard let entry else { continue }
      let y = body.y + offset
      let role = self.role(of: entry)
      let outcome = entry.error == nil ? "ok" : "FAILED"
      let routeWidth = columns.shown.first { $0.column == .route }?.width
      // Cut in the middle, where identifiers of one app often differ least; an error after it
      // leaves the identifier at least half the column.
      let identifierWidth = columns.shown.first { $0.column == .identifier }?.width ?? 12
      // A bridged machine's entry names its machine first (`ci-3:button`).
      let machine = entry.details.machine.map { DisplayText.field($0) + ":" } ?? ""
      var identifier = Formatting.middleTruncated(
        machine + entry.identifier.displayField,
        toColumns: entry.error == nil ? identifierWidth : max(identifierWidth / 2, 8))
      if let error = entry.error { identifier += " (" + DisplayText.escaped(error) + ")" }
      // Without the outcome column (a narrow pane), a failure says so where the kind is, so it
      // never rests on colour alone (NO_COLOR, a monochrome terminal).
      var kind = DisplayText.field(kindName(entry.kind))
      if entry.error != nil && !columns.showsOutcome { kind = "FAILED " + kind }
      let takenWidth = columns.shown.first { $0.column == .taken }?.width
      if entry.isRouted {
        identifier = routedSubject(of: entry, width: identifierWidth, showsRoute: takenWidth != nil)
      } else if entry.device != nil {
        kind = sessionKind(of: entry, showsRoute: routeWidth != nil, showsOutcome: columns.showsOutcome)
      }
      columns.draw(
        [
          .time: timeText(of: entry, now: state.now), .kind: kind,
          .identifier: identifier,
          .type: entry.transiting.map { columns.showsFullTypes ? DisplayText.field($0) : shortName(of: $0) }
            ?? "-",
          .size: Formatting.size(entry.size),
          .sender: entry.sender.map(DisplayText.field) ?? "-",
          .route: entry.isRouted
            ? RoutedDevice.column(entry.device, width: routeWidth)
            : routeWidth.flatMap { route(of: entry, width: $0) } ?? "-",
          .taken: takenWidth.flatMap { taken(by: entry, width: $0) } ?? "-",
          .outcome: outcome,
        ], into: &screen, row: y, x: body.x, role: role)
      if entry.id == state.trafficPane.selection {
        screen.paint(
          Rect(x: body.x, y: y, width: body.width, height: 1),
          role: focused ? "list.selected" : "list.selected.unfocused")
      }
    }
  }

  /// A session entry's kind column: where the post stands (`delivered`, `queued`, `cancelled`;
  /// `replied` for a reply that came; FAILED as for any failure), and, without a route column,
  /// its direction before it (`->` sent, `<-` received): the compact form.
  static func sessionKind(of entry: TrafficEntry, showsRoute: Bool, showsOutcome: Bool) -> String {
    let isReply = entry.kind.rawValue == "reply"
    if entry.error != nil || entry.delivery == .failed {
      return isReply ? "FAILED reply" : "FAILED"
    }
    let state = isReply ? "replied" : DisplayText.field(entry.delivery?.rawValue ?? kindName(entry.kind))
    guard !showsRoute else { return state }
    return (entry.isIncoming ? "<-" : "->") + state
  }

  /// A session entry's devices, `device -> peer` (`device <- peer` for what the device
  /// received), escaped: in full when `width` allows, else by role alone when both are of one
  /// pair (`phone -> watch`); `nil` for entries of plain directories.
  static func route(of entry: TrafficEntry, width: Int) -> String? {
    guard let device = entry.device else { return nil }
    let arrow = entry.isIncoming ? " <- " : " -> "
    let peer = entry.peer ?? "-"
    let full = DisplayText.field(device) + arrow + DisplayText.field(peer)
    guard TerminalWidth.columns(of: full) > width, let mark = device.lastIndex(of: "/"),
      let peerMark = peer.lastIndex(of: "/"), device[..<mark] == peer[..<peerMark]
    else { return full }
    return DisplayText.field(String(device[device.index(after: mark)...])) + arrow
      + DisplayText.field(String(peer[peer.index(after: peerMark)...]))
  }

  /// A push's or a deep link's subject in the identifier column, escaped: the notification
  /// identifier or the URL (cut in the middle), then the mailbox its route passed it to, and
  /// the error when the route's action failed. Without a route column (a narrow pane) the
  /// route comes first, compact: `[catcher 0] promo-7`, `[delegate cut] myapp://…`.
  static func routedSubject(of entry: TrafficEntry, width: Int, showsRoute: Bool) -> String {
    var prefix = ""
    if !showsRoute { prefix = "[" + (entry.route?.compactDescription ?? "?") + "] " }
    let room = max(width - TerminalWidth.columns(of: prefix), 8)
    var text: String
    if let subject = entry.routeSubject {
      text = prefix + Formatting.middleTruncated(DisplayText.field(subject), toColumns: room)
    } else {
      text = prefix + "(no id)"
    }
    if showsRoute, entry.identifier.byteCount > 0 { text += " → " + entry.identifier.displayField }
    if let error = entry.error { text += " (" + DisplayText.escaped(error) + ")" }
    return text
  }

  /// The route a push or a deep link took, in the route column: the device's words where they
  /// fit (`catcher 0 "promo-.*" (app.routes:4)`, `delegate, declined by …`, what was cut off),
  /// else the short form (`catcher 0 "promo-.*"`, `delegate, 1 declined`, `…, cut off`); `nil`
  /// for other entries, `?` for a record whose route cannot be read.
  static func taken(by entry: TrafficEntry, width: Int) -> String? {
    guard entry.isRouted else { return nil }
    guard let route = entry.route else { return "?" }
    let full = route.description
    return TerminalWidth.columns(of: full) <= width ? full : route.shortDescription
  }

  /// A transiting type in at most five columns: `file`, `coord`, `ctx`, `msg`, `xfer`; a type
  /// of a newer writer is cut with `…`.
  static func shortName(of type: String) -> String {
    switch TransitingType(rawValue: type) {
    case .file: return "file"
    case .coordinatedFile: return "coord"
    case .sessionContext: return "ctx"
    case .sessionMessage: return "msg"
    case .sessionFile: return "xfer"
    case nil: return TerminalWidth.truncated(DisplayText.field(type), toColumns: 5)
    }
  }

  /// The entry's time in the time column's 12: with its date when not today, and `?` after it
  /// when the journal claimed a time that cannot be right (the clock then without milliseconds).
  static func timeText(of entry: TrafficEntry, now: Int64) -> String {
    let text = Formatting.time(entry.milliseconds, now: now)
    guard entry.hasDoubtfulTime else { return text }
    return (text.count > 11 ? String(text.prefix(8)) : text) + "?"
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

  /// The columns that fit a pane width. Time, kind and identifier always; then the transiting
  /// type (short names), outcome, size and sender as they fit at their narrowest; what is left
  /// widens the type to full names, then the sender, then the identifier. The last column takes
  /// the rest of the row. With session entries on screen (`sessions`), a route column comes
  /// right after the type, 24 wide (`desk/phone -> desk/watch`) where that fits and 14
  /// (`phone -> watch`) where only that does, before the outcome, size and sender are given room;
  /// what is left widens it up to 48 first.
  struct Columns {
    enum Column: CaseIterable { case time, kind, identifier, type, route, taken, size, sender, outcome }
    var shown: [(column: Column, width: Int)] = []
    /// Whether the type column holds full names (`coordinated-file`) rather than short ones.
    var showsFullTypes = false
    /// Whether the outcome has a column of its own.
    var showsOutcome: Bool { shown.contains { $0.column == .outcome } }

    init(width: Int, sessions: Bool = false, routes: Bool = false) {
      var widths: [Column: Int] = [.time: 12, .kind: 12, .identifier: 12]
      var used = 1 + 12 + 1 + 12 + 1 + 12
      if routes && used + 1 + 10 + 1 + 20 <= width {
        // Pushes and deep links: the device (`desk/phone`) and the route taken (20 holds
        // `catcher 0 "promo-.*"`), before the type; narrower, the route goes into the
        // identifier column, compact, and the identifier keeps the room of the other columns
        // (a failure then reads FAILED where the kind is).
        widths[.route] = 10
        widths[.taken] = 20
        used += 1 + 10 + 1 + 20
      } else if sessions && !routes {
        if used + 1 + 5 <= width {
          widths[.type] = 5
          used += 1 + 5
        }
        if let route = [24, 14].first(where: { used + 1 + $0 <= width }) {
          widths[.route] = route
          used += 1 + route
        }
      }
      for (column, narrowest) in [(Column.type, 5), (.outcome, 7), (.size, 8), (.sender, 8)]
      where widths[column] == nil && used + 1 + narrowest <= width
        && !(routes && widths[.taken] == nil)
      {
        widths[column] = narrowest
        used += 1 + narrowest
      }
      var spare = max(width - used, 0)
      if let taken = widths[.taken] {
        // The route in the device's words first (48 holds most with their label).
        let grow = min(spare, 48 - taken)
        widths[.taken] = taken + grow
        spare -= grow
      }
      if widths[.type] != nil && spare >= 11 {
        widths[.type] = 16
        showsFullTypes = true
        spare -= 11
      }
      if let route = widths[.route], route == 24 {
        // Longer pair names, escaped ones too, where there is room.
        let grow = min(spare, 24)
        widths[.route] = route + grow
        spare -= grow
      }
      if let sender = widths[.sender] {
        let grow = min(spare, 4)
        widths[.sender] = sender + grow
        spare -= grow
      }
      widths[.identifier, default: 12] += spare
      shown = Column.allCases.compactMap { column in widths[column].map { (column, $0) } }
    }

    func drawHeadings(into screen: inout Screen, row: Int, x: Int) {
      draw(
        [
          .time: "time", .kind: "kind", .identifier: "identifier", .type: "type", .size: "size",
          .sender: "sender", .outcome: "outcome", .route: "devices", .taken: "route",
        ], into: &screen, row: row, x: x, role: "traffic.header")
    }

    func draw(_ texts: [Column: String], into screen: inout Screen, row: Int, x: Int, role: StyleRole) {
      var column = x + 1
      for (index, item) in shown.enumerated() {
        let width = index == shown.count - 1 ? max(screen.width - column, 0) : item.width
        let text = TerminalWidth.truncated(texts[item.column] ?? "", toColumns: width)
        screen.write(text, row: row, column: column, limit: width, role: role)
        column += width + 1
        if column >= screen.width { break }
      }
    }
  }
}
