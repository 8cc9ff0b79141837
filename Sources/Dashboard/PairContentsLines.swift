import ArchivedValues
import MailboxModel
import TerminalScreen
import WormholeVocabulary

/// The contents pane's lines for a node of the pairs' branch: the branch (how many pairs), a
/// pair (both devices one after the other, then the traffic between them), a device (its
/// activation, its contexts by identifier and size, its queued transfers, its traffic). Pure;
/// every text read from disk goes through `DisplayText`.
///
/// A device's traffic is the model's entries of the directories under its containers
/// (``PairSnapshot/containersPrefix(of:)``): what its own journals recorded, the sends it made
/// and what it received; the pair's is both devices', merged. Newest first, at most
/// ``trafficLimit``; a failed entry is `FAILED` with its error on the line below.
enum PairContentsLines {
  /// The most traffic entries listed for a pair or a device.
  static let trafficLimit = 100

  /// The lines for `node`, `columns` wide (the pair's table of its two devices fits them).
  static func lines(
    for node: TreeNodeID, pairs: [PairSnapshot], traffic: [TrafficEntry], columns: Int, now: Int64
  ) -> [ContentLine] {
    build(node, pairs: pairs, traffic: traffic, columns: columns, now: now).lines
  }

  /// The queued transfer shown on contents line `line` of a selected device, and whose it is,
  /// if one is. (A pair's table shows both devices' queues side by side: a transfer is
  /// cancelled from its device's contents.)
  static func transfer(onLine line: Int, of node: TreeNodeID, pairs: [PairSnapshot])
    -> (role: PairSnapshot.Role, transfer: PairSnapshot.QueuedTransfer)?
  {
    // The traffic comes after the queue, so the lines up to it do not depend on it.
    build(node, pairs: pairs, traffic: [], columns: 80, now: 0).transfers[line]
  }

  /// The lines, and which of them show a queued transfer.
  private struct Builder {
    var lines: [ContentLine] = []
    var transfers: [Int: (role: PairSnapshot.Role, transfer: PairSnapshot.QueuedTransfer)] = [:]
    let now: Int64

    mutating func keyed(_ key: String, _ value: String, indent: Int = 0, role: StyleRole = "contents") {
      lines.append(
        ContentLine(indent: indent, [.init(Formatting.padded(key, 11), "contents.key"), .init(value, role)]))
    }

    mutating func title(_ text: String, indent: Int) {
      lines.append(ContentLine(indent: indent, [.init(text, "contents.key")]))
    }

    mutating func none(indent: Int) {
      lines.append(ContentLine(indent: indent, [.init("none", "list.dim")]))
    }
  }

  private static func build(
    _ node: TreeNodeID, pairs: [PairSnapshot], traffic: [TrafficEntry], columns: Int, now: Int64
  ) -> Builder {
    var builder = Builder(now: now)
    switch node {
    case .pairs:
      builder.keyed("pairs", "\(pairs.count)")
      let running = pairs.reduce(0) { $0 + ($1.phone.isRunning ? 1 : 0) + ($1.watch.isRunning ? 1 : 0) }
      builder.keyed("running", "\(running) of \(pairs.count * 2) devices")
      builder.keyed("reachable", "\(pairs.filter(\.isReachable).count) of \(pairs.count) pairs")
    case .pair(let name):
      guard let pair = pairs.first(where: { $0.name == name }) else { break }
      builder.keyed("pair", DisplayText.field(pair.name))
      builder.keyed("reachable", reachability(of: pair))
      table(pair, columns: columns, into: &builder)
      trafficLines(
        PairSnapshot.Role.allCases.map { ($0, pair.containersPrefix(of: $0)) }, traffic: traffic,
        showsRole: true, columns: columns, into: &builder)
    case .device(let name, let role):
      guard let pair = pairs.first(where: { $0.name == name }) else { break }
      let device = pair.device(role)
      builder.keyed("device", DisplayText.field(pair.name) + " " + role.rawValue)
      builder.keyed("state", state(of: device))
      if let denial = device.denial {
        builder.keyed("link", denial.label + ": " + DisplayText.escaped(denial.reason), role: "list.error")
      }
      builder.keyed("reachable", reachability(of: pair))
      deviceBody(device, indent: 0, into: &builder)
      trafficLines(
        [(role, pair.containersPrefix(of: role))], traffic: traffic, showsRole: false, columns: columns,
        into: &builder)
    case .directory, .mailbox, .peers, .peerService, .peer, .machine, .remoteDirectory, .remoteMailbox:
      break
    }
    return builder
  }

  /// "activated, pid N", "not activated, pid N" (running, its session not yet activated),
  /// "starting" or "not running".
  static func state(of device: PairSnapshot.Device) -> String {
    guard let pid = device.runningPID else { return "not running" }
    guard pid != 0 else { return device.isActivated ? "activated" : "starting" }
    return device.activationText + ", pid \(pid)"
  }

  /// "yes", "unknown" and why, or "no" and which device keeps them apart (or that the running
  /// device's link does not reach its counterpart).
  static func reachability(of pair: PairSnapshot) -> String {
    switch pair.reachability {
    case .reachable: return "yes"
    case .unknown(let reason): return "unknown: " + reason
    case .unreachable:
      let apart = PairSnapshot.Role.allCases.filter { !pair.device($0).isActivated }
        .map { "the \($0.rawValue) is \(pair.device($0).activationText)" }
      let denied = PairSnapshot.Role.allCases.compactMap { role in
        pair.device(role).denial.flatMap { $0.isTakenOver ? "the \(role.rawValue) was taken over" : nil }
      }
      guard apart.isEmpty, denied.isEmpty else { return "no: " + (apart + denied).joined(separator: ", ") }
      return "no: its link does not reach the counterpart"
    }
  }

  /// The pair's two devices side by side: a row per state, context entry and queued transfer,
  /// the phone's in the first column and the watch's in the second, then their errors.
  private static func table(_ pair: PairSnapshot, columns: Int, into builder: inout Builder) {
    let cell = max((columns - 11) / 2, 12)
    func row(_ key: String, _ cells: [(text: String, role: StyleRole)]) {
      var pieces: [ContentLine.Piece] = [.init(Formatting.padded(key, 11), "contents.key")]
      for (index, content) in cells.enumerated() {
        let text = TerminalWidth.truncated(content.text, toColumns: cell - 1)
        pieces.append(.init(index == cells.count - 1 ? text : Formatting.padded(text, cell), content.role))
      }
      builder.lines.append(ContentLine(pieces))
    }
    /// "identifier  size", the identifier cut in its middle so that the size shows.
    func entry(_ identifier: String, _ size: Int, prefix: String = "") -> String {
      let size = "  " + Formatting.size(size)
      let room = cell - 1 - TerminalWidth.columns(of: prefix + size)
      return prefix + Formatting.middleTruncated(DisplayText.field(identifier), toColumns: max(room, 1))
        + size
    }
    let devices = PairSnapshot.Role.allCases.map { pair.device($0) }
    row("", devices.map { ($0.role.rawValue, "contents.key") })
    row("state", devices.map { ($0.activationText, $0.isActivated ? "contents" : "list.dim") })
    row("pid", devices.map { ($0.runningPID.map { $0 == 0 ? "starting" : "\($0)" } ?? "-", "contents") })
    func rows(_ key: String, _ cells: (PairSnapshot.Device) -> [String]) {
      let values = devices.map(cells)
      let count = max(values.map(\.count).max() ?? 0, 1)
      for index in 0..<count {
        row(
          index == 0 ? key : "",
          values.map { column in
            column.indices.contains(index)
              ? (column[index], "contents") : (index == 0 ? "none" : "", "list.dim")
          })
      }
    }
    rows("app ctx") { $0.applicationContext.map { entry($0.identifier, $0.size) } }
    rows("recv ctx") { $0.receivedContext.map { entry($0.identifier, $0.size) } }
    rows("queued") { $0.queuedTransfers.map { entry($0.identifier, $0.size, prefix: "#\($0.id) ") } }
    for device in devices {
      if let error = device.error {
        builder.lines.append(
          .text(device.role.rawValue + " error: " + DisplayText.escaped(error), "list.error"))
      }
      if let denial = device.denial {
        builder.lines.append(
          .text(
            device.role.rawValue + " " + denial.label + ": " + DisplayText.escaped(denial.reason),
            "list.error"))
      }
    }
  }

  /// A device's error, contexts and queue.
  private static func deviceBody(_ device: PairSnapshot.Device, indent: Int, into builder: inout Builder) {
    if let error = device.error {
      builder.lines.append(
        ContentLine(indent: indent, [.init("error: " + DisplayText.escaped(error), "list.error")]))
    }
    context("application context", device.applicationContext, indent: indent, into: &builder)
    context("received context", device.receivedContext, indent: indent, into: &builder)
    builder.title("queued transfers (\(device.queuedTransfers.count))", indent: indent)
    if device.queuedTransfers.isEmpty { builder.none(indent: indent + 2) }
    for transfer in device.queuedTransfers {
      builder.transfers[builder.lines.count] = (device.role, transfer)
      builder.lines.append(
        ContentLine(
          indent: indent + 2,
          [
            .init("#\(transfer.id) ", "contents.key"),
            .init(DisplayText.field(transfer.identifier), "contents"),
            .init("  " + Formatting.size(transfer.size), "contents"),
            .init("  " + Formatting.time(transfer.time, now: builder.now), "list.dim"),
          ]))
    }
  }

  private static func context(
    _ title: String, _ entries: [PairSnapshot.ContextEntry], indent: Int, into builder: inout Builder
  ) {
    builder.title(title + " (\(entries.count))", indent: indent)
    if entries.isEmpty { builder.none(indent: indent + 2) }
    for entry in entries {
      builder.lines.append(
        ContentLine(
          indent: indent + 2,
          [
            .init(DisplayText.field(entry.identifier), "contents"),
            .init("  " + Formatting.size(entry.size), "contents"),
          ]))
    }
  }

  /// The traffic of the directories under `prefixes` (each a device's), newest first. A
  /// session entry shows where it stands (`delivered`, `queued`, `cancelled`, `replied`,
  /// `FAILED`) and its route, `phone -> watch` (`phone <- watch` for what the phone received),
  /// when the pane is wide enough; else its direction before its state (`->delivered`), after
  /// the role whose containers recorded it (in a pair's contents).
  private static func trafficLines(
    _ prefixes: [(role: PairSnapshot.Role, prefix: String)], traffic: [TrafficEntry], showsRole: Bool,
    columns: Int, into builder: inout Builder
  ) {
    let entries = self.traffic(under: prefixes, in: traffic, limit: trafficLimit)
    let count = entries.count < trafficLimit ? "\(entries.count)" : "newest \(trafficLimit)"
    builder.title("traffic (\(count))", indent: 0)
    if entries.isEmpty { builder.none(indent: 2) }
    let hasSessions = entries.contains { $0.entry.device != nil }
    let showsRoute = hasSessions && columns >= routeColumns
    for (role, entry) in entries {
      var pieces: [ContentLine.Piece] = [
        .init(TrafficPaneView.timeText(of: entry, now: builder.now) + " ", "list.dim")
      ]
      if showsRoute {
        let route = TrafficPaneView.route(of: entry, width: 0) ?? (showsRole ? role.rawValue : "")
        pieces.append(.init(Formatting.padded(route, 15), "contents.key"))
      } else if showsRole {
        pieces.append(.init(Formatting.padded(role.rawValue, 6), "contents.key"))
      }
      let failed = entry.error != nil || entry.delivery == .failed
      let kind =
        entry.device != nil
        ? TrafficPaneView.sessionKind(of: entry, showsRoute: showsRoute, showsOutcome: false)
        : failed ? "FAILED" : DisplayText.field(TrafficPaneView.kindName(entry.kind))
      pieces.append(
        .init(
          Formatting.padded(kind, hasSessions ? 12 : 8) + " ",
          failed ? "traffic.failed" : TrafficPaneView.role(of: entry)))
      if let transiting = entry.transiting {
        pieces.append(
          .init(Formatting.padded(TrafficPaneView.shortName(of: transiting), 5) + " ", "contents"))
      }
      pieces.append(.init(entry.identifier.displayField, "contents"))
      if entry.size > 0 { pieces.append(.init("  " + Formatting.size(entry.size), "contents")) }
      builder.lines.append(ContentLine(indent: 2, pieces))
      if let error = entry.error {
        let label = failureLabel(error).map { $0 + ": " } ?? ""
        builder.lines.append(
          ContentLine(indent: 6, [.init(label + DisplayText.escaped(error), "list.error")]))
      }
    }
  }

  /// The contents width from which session entries show their route in a column of its own.
  static let routeColumns = 64

  /// WatchConnectivity's failures a session send meets, by code: what a failed entry's error
  /// line starts with, so that it shows in a narrow pane however long the error is.
  private static let failureLabels = [
    (code: 7007, label: "not reachable"), (code: 7012, label: "reply timed out"),
    (code: 7004, label: "not activated"), (code: 7010, label: "payload too large"),
  ]

  /// `not reachable (7007)` for an error that names `WCErrorCode… 7007`, and so on; `nil` for
  /// any other error.
  static func failureLabel(_ error: String) -> String? {
    guard error.contains("WCErrorCode") else { return nil }
    return failureLabels.first { error.contains(" \($0.code))") }.map { "\($0.label) (\($0.code))" }
  }

  /// The entries of directories under any of `prefixes`, newest first (the stream's order
  /// reversed), at most `limit`, each with the role whose prefix it is under.
  static func traffic(
    under prefixes: [(role: PairSnapshot.Role, prefix: String)], in traffic: [TrafficEntry], limit: Int
  ) -> [(role: PairSnapshot.Role, entry: TrafficEntry)] {
    let prefixes = prefixes.map { ($0.role, Array($0.prefix.utf8)) }
    var found: [(role: PairSnapshot.Role, entry: TrafficEntry)] = []
    for entry in traffic.reversed() {
      guard found.count < limit else { break }
      let role = entry.directory.withBytes { directory in
        prefixes.first { directory.starts(with: $0.1) }?.0
      }
      if let role { found.append((role, entry)) }
    }
    return found
  }
}
