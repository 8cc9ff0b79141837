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

  static func lines(for node: TreeNodeID, pairs: [PairSnapshot], traffic: [TrafficEntry], now: Int64)
    -> [ContentLine]
  {
    build(node, pairs: pairs, traffic: traffic, now: now).lines
  }

  /// The queued transfer shown on contents line `line` of a selected pair or device, and whose
  /// it is, if one is.
  static func transfer(onLine line: Int, of node: TreeNodeID, pairs: [PairSnapshot])
    -> (role: PairSnapshot.Role, transfer: PairSnapshot.QueuedTransfer)?
  {
    // The traffic comes after every queue, so the lines up to them do not depend on it.
    build(node, pairs: pairs, traffic: [], now: 0).transfers[line]
  }

  /// The lines, and which of them show a queued transfer.
  private struct Builder {
    var lines: [ContentLine] = []
    var transfers: [Int: (role: PairSnapshot.Role, transfer: PairSnapshot.QueuedTransfer)] = [:]
    let now: Int64

    mutating func keyed(_ key: String, _ value: String, indent: Int = 0, role: StyleRole = "contents") {
      lines.append(ContentLine(indent: indent, [.init(Formatting.padded(key, 11), "contents.key"), .init(value, role)]))
    }

    mutating func title(_ text: String, indent: Int) {
      lines.append(ContentLine(indent: indent, [.init(text, "contents.key")]))
    }

    mutating func none(indent: Int) {
      lines.append(ContentLine(indent: indent, [.init("none", "list.dim")]))
    }
  }

  private static func build(_ node: TreeNodeID, pairs: [PairSnapshot], traffic: [TrafficEntry], now: Int64)
    -> Builder
  {
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
      for role in PairSnapshot.Role.allCases {
        let device = pair.device(role)
        builder.keyed(role.rawValue, state(of: device), role: device.isActivated ? "contents" : "list.dim")
        deviceBody(device, indent: 2, into: &builder)
      }
      trafficLines(
        PairSnapshot.Role.allCases.map { ($0, pair.containersPrefix(of: $0)) }, traffic: traffic,
        showsRole: true, into: &builder)
    case .device(let name, let role):
      guard let pair = pairs.first(where: { $0.name == name }) else { break }
      let device = pair.device(role)
      builder.keyed("device", DisplayText.field(pair.name) + " " + role.rawValue)
      builder.keyed("state", state(of: device))
      builder.keyed("reachable", reachability(of: pair))
      deviceBody(device, indent: 0, into: &builder)
      trafficLines([(role, pair.containersPrefix(of: role))], traffic: traffic, showsRole: false, into: &builder)
    case .directory, .mailbox:
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

  /// "yes", or "no" and which device keeps them apart.
  static func reachability(of pair: PairSnapshot) -> String {
    guard !pair.isReachable else { return "yes" }
    let apart = PairSnapshot.Role.allCases.filter { !pair.device($0).isActivated }
      .map { "the \($0.rawValue) is \(pair.device($0).activationText)" }
    return "no: " + apart.joined(separator: ", ")
  }

  /// A device's error, contexts and queue.
  private static func deviceBody(_ device: PairSnapshot.Device, indent: Int, into builder: inout Builder) {
    if let error = device.error {
      builder.lines.append(ContentLine(indent: indent, [.init("error: " + DisplayText.escaped(error), "list.error")]))
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

  /// The traffic of the directories under `prefixes` (each a device's), newest first.
  private static func trafficLines(
    _ prefixes: [(role: PairSnapshot.Role, prefix: String)], traffic: [TrafficEntry], showsRole: Bool,
    into builder: inout Builder
  ) {
    let entries = self.traffic(under: prefixes, in: traffic, limit: trafficLimit)
    let count = entries.count < trafficLimit ? "\(entries.count)" : "newest \(trafficLimit)"
    builder.title("traffic (\(count))", indent: 0)
    if entries.isEmpty { builder.none(indent: 2) }
    for (role, entry) in entries {
      var pieces: [ContentLine.Piece] = [.init(TrafficPaneView.timeText(of: entry, now: builder.now) + " ", "list.dim")]
      if showsRole { pieces.append(.init(Formatting.padded(role.rawValue, 6), "contents.key")) }
      let failed = entry.error != nil
      let kind = failed ? "FAILED" : DisplayText.field(TrafficPaneView.kindName(entry.kind))
      pieces.append(.init(Formatting.padded(kind, 8) + " ", failed ? "traffic.failed" : TrafficPaneView.role(of: entry)))
      if let transiting = entry.transiting {
        pieces.append(.init(Formatting.padded(TrafficPaneView.shortName(of: transiting), 5) + " ", "contents"))
      }
      pieces.append(.init(entry.identifier.displayField, "contents"))
      if entry.size > 0 { pieces.append(.init("  " + Formatting.size(entry.size), "contents")) }
      builder.lines.append(ContentLine(indent: 2, pieces))
      if let error = entry.error {
        builder.lines.append(ContentLine(indent: 6, [.init(DisplayText.escaped(error), "list.error")]))
      }
    }
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
