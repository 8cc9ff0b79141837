import ArchivedValues
import FleetModel
import MailboxModel
import TerminalScreen
import WormholeVocabulary

/// The contents pane for a bridged machine or one of its directories: what its bridge said
/// (presence, whether it accepts remote writes), its directories and counts, and the broker's
/// dropped messages. Names from the broker are escaped.
enum FleetContentsLines {
  static func lines(for node: TreeNodeID, fleet: FleetState, now: Int64) -> [ContentLine] {
    switch node {
    case .machine(let name):
      guard let machine = fleet.machines[name] else { return [.text("machine gone", "list.dim")] }
      var lines: [ContentLine] = [
        field("machine    ", DisplayText.field(name)),
        field(
          "bridge     ",
          machine.presence == .online
            ? "online"
            : machine.presence == .offline
              ? "offline (what it published last is shown)" : "presence not seen",
          role: machine.presence == .offline ? "list.error" : "contents"),
        field(
          "writes     ",
          machine.remoteWriteRefusal.map { "refused: " + DisplayText.escaped($0) } ?? "accepted"),
        field(
          "mailboxes  ",
          "\(machine.presentCount) present in \(machine.directoryPaths.count) director\(machine.directoryPaths.count == 1 ? "y" : "ies")"
        ),
      ]
      for path in machine.directoryPaths {
        lines.append(
          .text("  " + DisplayText.name(path.lossyText) + "  \(machine.presentCount(in: path))", "contents"))
      }
      lines.append(field("history    ", historyLine(fleet)))
      if fleet.dropped > 0 {
        lines.append(
          .text(
            "broker: \(fleet.dropped) message\(fleet.dropped == 1 ? "" : "s") dropped (not a bridge's); last: "
              + (fleet.lastDropReason ?? "-"), "list.error"))
      }
      return lines
    case .remoteDirectory(let name, let path):
      let machine = fleet.machines[name]
      let mailboxes = machine?.directories[path] ?? [:]
      return [
        field("machine    ", DisplayText.field(name)),
        field("directory  ", DisplayText.name(path.lossyText)),
        field("mailboxes  ", "\(machine?.presentCount(in: path) ?? 0) present, \(mailboxes.count) seen"),
      ]
    default: return []
    }
  }

  /// `3.2 MB of 67 MB, 64 a mailbox; 12 evicted, oldest first`: the remote history (the earlier
  /// versions of every machine's mailboxes) and its byte budget, said.
  static func historyLine(_ fleet: FleetState) -> String {
    var line =
      "\(Formatting.size(fleet.historyBytes)) of \(Formatting.size(fleet.historyByteBudget)), \(fleet.historyDepth) a mailbox"
    if fleet.evictedVersions > 0 { line += "; \(fleet.evictedVersions) evicted, oldest first" }
    return line
  }

  private static func field(_ key: String, _ value: String, role: StyleRole = "contents") -> ContentLine {
    ContentLine([.init(key, "contents.key"), .init(value, role)])
  }
}
