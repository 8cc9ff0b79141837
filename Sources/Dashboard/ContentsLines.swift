import ArchivedValues
import FleetModel
import MailboxModel
import TerminalScreen
import WormholeVocabulary

/// The contents pane's lines for one frame, and what depends on them (the versions, the one `r`
/// replays, the sparkline): built from the model (the input), the tree's selection and the
/// contents pane's state, at a size and a time. Pure: nothing here changes or reads anything
/// else, so a recording at a time cursor can be shown the same way. It decodes nothing: the
/// versions it shows in full come decoded (``DecodedVersions``), and it says which it wants
/// (``wantedSerials``) and "decoding …" until they arrive.
struct ContentsLines {
  let model: ModelState
  /// The versions decoded so far.
  var decodedVersions = DecodedVersions()
  /// The tree or JSON view's lines as last built, used while ``memoKey`` still matches.
  var memo: Memo?
  /// The tree's selection.
  let selection: TreeNodeID?
  let contentsPane: ContentsPaneState
  /// Mailboxes holding a message, per directory (the tree counts them).
  let presentCounts: [FileName: Int]
  let width: Int
  let height: Int
  /// Now, in milliseconds since 1970.
  let now: Int64
  /// The pairs of simulated devices, for their nodes of the tree.
  var pairs: [PairSnapshot] = []
  /// The running simulated peers, for their nodes of the tree.
  var peers: [PeerSnapshot] = []
  /// A push or a deep link selected in the traffic pane: shown instead of the tree's selection.
  var routeEntry: TrafficEntry?
  /// The fleet's bridged machines (`--broker`), for their nodes of the tree.
  var fleet = FleetState()

  var contentsView: ContentsView { contentsPane.view }
  var contentsCursor: Int { contentsPane.cursor }

  /// The selected mailbox, when a mailbox is selected.
  var selectedMailbox: Mailbox? {
    switch selection {
    case .mailbox(let directory, let identifier)?: return model.mailbox(identifier, in: directory)
    case .remoteMailbox(let machine, let directory, let identifier)?:
      return fleet.mailbox(identifier, in: directory, machine: machine)
    default: return nil
    }
  }

  /// The selected mailbox's versions, newest first (the current one first, when present).
  var selectedVersions: [MailboxVersion] {
    guard let mailbox = selectedMailbox else { return [] }
    return (mailbox.current.map { [$0] } ?? []) + mailbox.history.reversed()
  }

  /// The version `r` replays: the one under the history cursor in the history and diff views,
  /// else the newest one kept.
  var versionToReplay: MailboxVersion? {
    let versions = selectedVersions
    let index = contentsView == .history || contentsView == .diff ? contentsPane.historyCursor : 0
    return versions.indices.contains(index) ? versions[index] : nil
  }

  /// The versions to decode, most needed first: the current one (what the tree and JSON views
  /// show and `y` copies), the two a diff compares, and every one kept when the sparkline may
  /// draw a series across them. Versions whose bytes were not kept need no decoding.
  var wantedSerials: [UInt64] {
    let versions = selectedVersions
    guard !versions.isEmpty else { return [] }
    var wanted: [MailboxVersion] = selectedMailbox?.current.map { [$0] } ?? []
    if contentsView == .diff, let pair = diffPair { wanted += [pair.newer, pair.older].compactMap(\.self) }
    if versions.count >= 2 { wanted += versions.reversed() }
    var seen = Set<UInt64>()
    return wanted.compactMap { version in
      guard version.bytes != nil, seen.insert(version.serial).inserted else { return nil }
      return version.serial
    }
  }

  /// The decoding of `version`: `nil` while it has not arrived.
  func decoded(_ version: MailboxVersion) -> DecodedMessage? {
    guard version.bytes != nil else { return .notStored(size: version.size) }
    return decodedVersions.message(version.serial)
  }

  /// What the pane says of a version whose decoding has not arrived.
  static let decodingLine = ContentLine.text("decoding …", "list.dim")

  /// What the tree and JSON views' lines are built from, besides values that never change (a
  /// version's decoding): a large value's lines are built once per change of these, not once
  /// per frame or key. `nil` for the other views, which are cheap or depend on the time.
  struct MemoKey: Hashable, Sendable {
    var view: ContentsView
    var selection: TreeNodeID
    var serial: UInt64
    var isDecoded: Bool
    var collapsedPaths: Set<String>
  }

  /// Lines built for a ``MemoKey``.
  struct Memo: Sendable {
    var key: MemoKey
    var lines: [ContentLine]
  }

  /// The key of the lines shown now, when they can be kept.
  var memoKey: MemoKey? {
    guard routeEntry == nil, contentsView == .tree || contentsView == .json, let selection,
      let current = selectedMailbox?.current
    else { return nil }
    return MemoKey(
      view: contentsView, selection: selection, serial: current.serial, isDecoded: decoded(current) != nil,
      collapsedPaths: contentsView == .tree ? contentsPane.collapsedPaths : [])
  }

  /// The lines of the contents pane for the current selection and view: the memo's, when it
  /// was built from the same inputs.
  func lines() -> [ContentLine] {
    if let memo, let key = memoKey, memo.key == key { return memo.lines }
    return builtLines()
  }

  /// The lines built anew.
  private func builtLines() -> [ContentLine] {
    if let routeEntry { return RouteContentsLines.lines(for: routeEntry, now: now) }
    guard let selection else {
      return [.text("Nothing here yet: no wormhole directory was found.", "list.dim")]
    }
    let mailboxIdentifier: FileName
    switch selection {
    case .mailbox(_, let identifier), .remoteMailbox(_, _, let identifier): mailboxIdentifier = identifier
    case .machine, .remoteDirectory:
      return FleetContentsLines.lines(for: selection, fleet: fleet, now: now)
    default:
      guard let directory = selection.directory else {
        if selection.isPeerNode {
          return PeerContentsLines.lines(for: selection, peers: peers, traffic: model.traffic, now: now)
        }
        return PairContentsLines.lines(
          for: selection, pairs: pairs, traffic: model.traffic,
          columns: DashboardLayout(width: width, height: height).contents.width - 1, now: now)
      }
      return directoryLines(directory)
    }
    let identifier = mailboxIdentifier
    guard let mailbox = selectedMailbox else { return [] }
    switch contentsView {
    case .tree:
      guard let version = mailbox.current else { return clearedLines(mailbox) }
      return treeLines(version, label: identifier.displayField)
    case .json:
      guard let version = mailbox.current else { return clearedLines(mailbox) }
      return jsonLines(version)
    case .hex:
      guard let version = mailbox.current else { return clearedLines(mailbox) }
      guard let bytes = version.bytes else { return [notKeptLine(version)] }
      let columns = DashboardLayout(width: width, height: height).contents.width - 1
      return HexDump.lines(bytes, columns: columns).map { .text($0) }
    case .history:
      return historyLines()
    case .diff:
      return diffLines()
    }
  }

  /// The JSON view: the inspector's JSON indented, at most ``ValueTree/rowLimit`` lines and a
  /// last one saying how many more there are; what was not decoded says why instead.
  private func jsonLines(_ version: MailboxVersion) -> [ContentLine] {
    valueLines(version) { inspection in
      let layout = JSONLayout.indented(inspection.root.json())
      var lines = layout.lines.map { text -> ContentLine in
        let body = text.drop { $0 == " " }
        return ContentLine(
          indent: text.count - body.count, [.init(DisplayText.escaped(String(body)), "contents")])
      }
      if layout.omitted > 0 {
        lines.append(ValueTree.omissionLine(layout.omitted, "lines", limit: ValueTree.rowLimit))
      }
      return lines
    }
  }

  /// The lines `render` makes of `version`'s decoded value; what was not decoded (yet, or at
  /// all, or whose bytes were not kept) says why instead. Serves the tree and JSON views.
  private func valueLines(
    _ version: MailboxVersion, _ render: (Inspection) -> [ContentLine]
  ) -> [ContentLine] {
    switch decoded(version) {
    case nil: return [Self.decodingLine]
    case .message(let inspection): return render(inspection)
    case .undecodable(let reason):
      return [
        .text("undecodable: " + DisplayText.escaped(reason), "list.error"),
        .text("press v for hex", "list.dim"),
      ]
    case .notStored:
      return [notKeptLine(version)]
    }
  }

  /// Why the value of `version` cannot be copied as JSON (its bytes were not kept, or do not
  /// decode), or `nil` when it can: a copy of `null` would say "copied" of nothing.
  func copyRefusal(for version: MailboxVersion) -> String? {
    switch decoded(version) {
    case nil: return "nothing copied: the value is still being decoded"
    case .message: return nil
    case .undecodable(let reason):
      return "nothing copied: the value is undecodable: " + DisplayText.escaped(reason)
    case .notStored: return "nothing copied: the value is " + notKeptLine(version).pieces[0].text
    }
  }

  /// What the views say of a version whose bytes the watcher did not keep.
  private func notKeptLine(_ version: MailboxVersion) -> ContentLine {
    if version.serial >= FleetState.firstSerial {
      // The bridge sent no archive (above its limit, unreadable): its note says why.
      return .text("not sent by the bridge: " + version.summary, "list.dim")
    }
    return .text(
      "too large to show: \(Formatting.size(version.size)) (\(Formatting.count(version.size)) bytes), over the "
        + "\(Formatting.size(model.configuration.storedByteLimit)) the watcher keeps", "list.dim")
  }

  private func clearedLines(_ mailbox: Mailbox) -> [ContentLine] {
    var lines: [ContentLine] = []
    if let error = mailbox.error {
      lines.append(.text("unreadable: " + DisplayText.escaped(error), "list.error"))
    } else {
      lines.append(.text("cleared", "list.dim"))
    }
    if !mailbox.history.isEmpty {
      lines.append(.text("\(mailbox.history.count) earlier versions: press v for history", "list.dim"))
    }
    return lines
  }

  private func treeLines(_ version: MailboxVersion, label: String) -> [ContentLine] {
    valueLines(version) { inspection in
      var lines: [ContentLine] = []
      // A damaged archive is shown as its property list: say why, as `read` and `inspect` do (a
      // plain property list is a value like any other).
      if let reason = inspection.notArchiveReason, !inspection.isPlainPropertyList {
        lines.append(
          .text("shown as a property list: " + DisplayText.escaped(reason.description), "status.notice"))
      }
      for warning in inspection.warnings {
        lines.append(.text("warning: " + DisplayText.escaped(String(describing: warning)), "status.notice"))
      }
      lines += ValueTree.lines(
        of: inspection.root, label: label, collapsed: contentsPane.collapsedPaths)
      return lines
    }
  }

  private func directoryLines(_ path: FileName) -> [ContentLine] {
    guard let directory = model.directories[path] else {
      // A device set's group container in which no mailbox was found (the tree lists it).
      return [
        ContentLine([
          .init("container  ", "contents.key"), .init(DisplayText.name(path.lossyText), "contents"),
        ]),
        .text(
          "no mailbox: no *.archive was found in this group's container; it is watched, so one written there shows here",
          "list.dim"),
      ]
    }
    var lines: [ContentLine] = [
      ContentLine([
        .init("directory  ", "contents.key"), .init(DisplayText.name(path.lossyText), "contents"),
      ]),
      ContentLine([
        .init("mailboxes  ", "contents.key"),
        .init(
          "\(presentCounts[path] ?? 0) present, "
            + (directory.unreadableCount > 0 ? "\(directory.unreadableCount) unreadable, " : "")
            + "\(directory.mailboxes.count) seen", "contents"),
      ]),
    ]
    if let sequence = directory.lastJournalSequence {
      lines.append(
        ContentLine([.init("journal    ", "contents.key"), .init("last record \(sequence)", "contents")]))
    }
    if directory.isPolled {
      lines.append(.text("polled: the inotify watch limit was reached", "list.polled"))
    }
    if let error = directory.error {
      lines.append(.text("error: " + DisplayText.escaped(error), "list.error"))
    }
    return lines
  }

  private func historyLines() -> [ContentLine] {
    let versions = selectedVersions
    guard !versions.isEmpty else { return [.text("no versions kept", "list.dim")] }
    let currentSerial = selectedMailbox?.current?.serial
    return versions.map { version -> ContentLine in
      var pieces: [ContentLine.Piece] = [
        .init(version.serial == currentSerial ? "now " : "    ", "contents.key"),
        .init(
          Formatting.padded(Formatting.time(version.observedMilliseconds, now: now), 12) + "  ", "contents"),
        .init(Formatting.padded(version.sender.map(DisplayText.field) ?? "-", 12) + " ", "contents"),
        .init(Formatting.padded(Formatting.size(version.size), 7) + " ", "contents.number"),
      ]
      if version.serial == contentsPane.markedSerial { pieces.insert(.init("* ", "contents.changed"), at: 0) }
      pieces.append(.init(TerminalWidth.truncated(version.summary, toColumns: 80), "contents.string"))
      return ContentLine(pieces)
    }
  }

  /// The versions the diff view compares: the one under the history cursor, and the marked one
  /// or else the one before it; `nil` when no version is there.
  private var diffPair: (newer: MailboxVersion, older: MailboxVersion?)? {
    let versions = selectedVersions
    let historyCursor = contentsPane.historyCursor
    guard versions.indices.contains(historyCursor) else { return nil }
    let newer = versions[historyCursor]
    if let markedSerial = contentsPane.markedSerial, markedSerial != newer.serial,
      let marked = versions.first(where: { $0.serial == markedSerial })
    {
      return (newer, marked)
    }
    return (newer, versions.indices.contains(historyCursor + 1) ? versions[historyCursor + 1] : nil)
  }

  private func diffLines() -> [ContentLine] {
    guard let (newer, older) = diffPair else { return [.text("no versions kept", "list.dim")] }
    guard let older else { return [.text("the first version kept: nothing to compare with", "list.dim")] }
    var lines: [ContentLine] = [
      .text(
        Formatting.time(older.observedMilliseconds, now: now) + " → "
          + Formatting.time(newer.observedMilliseconds, now: now), "contents.key")
    ]
    // A version that was not decoded is not compared: "no field changed" would be a guess.
    for (version, name) in [(older, "older"), (newer, "newer")] {
      switch decoded(version) {
      case nil:
        lines.append(Self.decodingLine)
      case .message: continue
      case .undecodable(let reason):
        lines.append(
          .text(
            "not compared: the \(name) version is undecodable: " + DisplayText.escaped(reason), "list.error"))
      case .notStored:
        lines.append(
          .text("not compared: the \(name) version is " + notKeptLine(version).pieces[0].text, "list.dim"))
      }
      return lines
    }
    let comparison = ValueDiff.changes(from: value(of: older), to: value(of: newer))
    if comparison.isEmpty { lines.append(.text("no field changed", "list.dim")) }
    for change in comparison.changes {
      switch change {
      case .added(let path, let text):
        lines.append(
          ContentLine([
            .init("+ " + DisplayText.escaped(path) + " = ", "contents.added"), .init(text, "contents.added"),
          ]))
      case .removed(let path, let text):
        lines.append(
          ContentLine([
            .init("- " + DisplayText.escaped(path) + " = ", "contents.removed"),
            .init(text, "contents.removed"),
          ]))
      case .changed(let path, let old, let new):
        lines.append(
          ContentLine([
            .init("~ " + DisplayText.escaped(path) + ": ", "contents.changed"),
            .init(old, "contents.removed"),
            .init(" → ", "contents"), .init(new, "contents.added"),
          ]))
      }
    }
    if comparison.omitted > 0 {
      lines.append(ValueTree.omissionLine(comparison.omitted, "changes", limit: ValueTree.rowLimit))
    }
    return lines
  }

  func value(of version: MailboxVersion) -> ArchivedValue {
    if case .message(let inspection) = decoded(version) { return inspection.root }
    return .null
  }

  /// A numeric series across the selected mailbox's versions, oldest first: the field under the
  /// tree cursor when it is a number, else the whole value when it is one.
  func sparklineSeries() -> (label: String, values: [Double])? {
    sparklineSeries(lines: lines())
  }

  /// ``sparklineSeries()`` with the contents lines already built (a frame builds them once).
  func sparklineSeries(lines: [ContentLine]) -> (label: String, values: [Double])? {
    guard selectedMailbox != nil else { return nil }
    var path = "root"
    if contentsView == .tree {
      if lines.indices.contains(contentsCursor), let linePath = lines[contentsCursor].path,
        lines[contentsCursor].number != nil
      {
        path = linePath
      }
    }
    let versions = selectedVersions.reversed()
    // Drawn once every version it spans has been decoded, not growing as they arrive.
    guard versions.allSatisfy({ decoded($0) != nil }) else { return nil }
    var values: [Double] = []
    for version in versions {
      if let found = ValueTree.value(at: path, in: value(of: version)),
        let number = ValueTree.number(of: found)
      {
        values.append(number)
      }
    }
    guard values.count >= 2 else { return nil }
    return (path, values)
  }
}
