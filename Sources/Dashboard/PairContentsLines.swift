import ArchivedValues

/// The contents pane's lines for a node of the pairs' branch: the branch (how many pairs), a
/// pair (its devices and whether they reach each other), a device (its contexts, by identifier
/// and size, and its queued transfers). Pure; every text read from disk goes through
/// `DisplayText`.
enum PairContentsLines {
  static func lines(for node: TreeNodeID, pairs: [PairSnapshot], now: Int64) -> [ContentLine] {
    switch node {
    case .pairs:
      return [keyed("pairs      ", "\(pairs.count)")]
    case .pair(let name):
      guard let pair = pairs.first(where: { $0.name == name }) else { return [] }
      var lines = [
        keyed("pair       ", DisplayText.field(pair.name)),
        keyed("reachable  ", pair.isReachable ? "yes" : "no (both devices must run)"),
      ]
      for role in PairSnapshot.Role.allCases {
        let device = pair.device(role)
        lines.append(
          keyed(
            Formatting.padded(role.rawValue, 11), running(device) + ", \(device.queuedTransfers.count) queued"
          ))
      }
      return lines
    case .device(let name, let role):
      guard let pair = pairs.first(where: { $0.name == name }) else { return [] }
      return deviceLines(pair.device(role), pair: pair, now: now)
    case .directory, .mailbox:
      return []
    }
  }

  /// The queued transfer shown on contents line `line` of a selected device, if one is.
  static func transfer(onLine line: Int, of device: PairSnapshot.Device) -> PairSnapshot.QueuedTransfer? {
    // The lines before the queue: three, an error's, each context's title and entries (or
    // "none"), the queue's title.
    let first =
      3 + (device.error == nil ? 0 : 1) + 1 + max(device.applicationContext.count, 1) + 1
      + max(device.receivedContext.count, 1) + 1
    let index = line - first
    return device.queuedTransfers.indices.contains(index) ? device.queuedTransfers[index] : nil
  }

  /// "running, pid N" or "not running".
  static func running(_ device: PairSnapshot.Device) -> String {
    guard let pid = device.runningPID else { return "not running" }
    return pid == 0 ? "starting" : "running, pid \(pid)"
  }

  private static func deviceLines(_ device: PairSnapshot.Device, pair: PairSnapshot, now: Int64)
    -> [ContentLine]
  {
    var lines = [
      keyed("device     ", DisplayText.field(pair.name) + " " + device.role.rawValue),
      keyed("state      ", running(device)),
      keyed("reachable  ", pair.isReachable ? "yes" : "no"),
    ]
    if let error = device.error { lines.append(.text("error: " + DisplayText.escaped(error), "list.error")) }
    lines.append(contentsOf: contextLines("application context", device.applicationContext))
    lines.append(contentsOf: contextLines("received context", device.receivedContext))
    lines.append(.text("queued transfers (\(device.queuedTransfers.count))", "contents.key"))
    if device.queuedTransfers.isEmpty { lines.append(.text("  none", "list.dim")) }
    for transfer in device.queuedTransfers {
      lines.append(
        ContentLine(
          indent: 2,
          [
            .init("#\(transfer.id) ", "contents.key"),
            .init(DisplayText.field(transfer.identifier), "contents"),
            .init("  " + Formatting.size(transfer.size), "contents"),
            .init("  " + Formatting.time(transfer.time, now: now), "list.dim"),
          ]))
    }
    return lines
  }

  private static func contextLines(_ title: String, _ entries: [PairSnapshot.ContextEntry]) -> [ContentLine] {
    var lines: [ContentLine] = [.text(title + " (\(entries.count))", "contents.key")]
    if entries.isEmpty { lines.append(.text("  none", "list.dim")) }
    for entry in entries {
      lines.append(
        ContentLine(
          indent: 2,
          [
            .init(DisplayText.field(entry.identifier), "contents"),
            .init("  " + Formatting.size(entry.size), "contents"),
          ]))
    }
    return lines
  }

  private static func keyed(_ key: String, _ value: String) -> ContentLine {
    ContentLine([.init(key, "contents.key"), .init(value, "contents")])
  }
}
