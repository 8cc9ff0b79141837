import ArchivedValues
import MailboxModel
import WormholeVocabulary

/// The contents pane for a push notification or a deep link selected in the traffic pane: the
/// device it went to, what was matched, the route it took in the device's words, and what it
/// carried (the push's JSON, indented, or the URL), or why that was not kept.
enum RouteContentsLines {
  static func lines(for entry: TrafficEntry, now: Int64) -> [ContentLine] {
    let isPush = entry.kind.rawValue == TrafficKind.push.rawValue
    var lines: [ContentLine] = []
    let device = entry.device.map(DisplayText.field) ?? "a device"
    lines.append(
      .text(
        (isPush ? "push notification to " : "deep link opened on ") + device + ", "
          + Formatting.time(entry.milliseconds, now: now) + " (traffic entry \(entry.id))", "contents.key"))
    if let route = entry.route {
      if let subject = route.subject {
        lines.append(.text((isPush ? "notification id: " : "URL: ") + DisplayText.quoted(subject)))
      } else if isPush {
        lines.append(.text("notification id: none (no catcher can match it)", "list.dim"))
      }
      lines.append(.text("route: " + route.description))
    } else {
      lines.append(.text("route: not recorded, or not readable by this build", "list.dim"))
    }
    if entry.identifier.byteCount > 0 {
      let type = entry.transiting.map { " (" + DisplayText.field($0) + ")" } ?? ""
      lines.append(.text("passed to " + entry.identifier.displayField + type))
    }
    if let error = entry.error {
      lines.append(.text("FAILED: " + DisplayText.escaped(error), "traffic.failed"))
    }
    lines.append(.text(""))
    guard let payload = entry.payload else {
      lines.append(
        .text(
          "\(isPush ? "payload" : "URL") not kept (\(Formatting.size(entry.size))): a record keeps at most "
            + "\(TrafficRecord.maximumPayloadBytes) bytes, so r cannot send it again", "list.dim"))
      return lines
    }
    guard isPush else {
      lines.append(.text("r opens it again, on this device or another", "list.dim"))
      return lines
    }
    lines.append(
      .text(
        "payload, \(payload.utf8.count) of \(TrafficRecord.maximumPayloadBytes) bytes (r sends it again):"))
    let layout = JSONLayout.indented(payload)
    for text in layout.lines {
      let body = text.drop { $0 == " " }
      lines.append(
        ContentLine(
          indent: 2 + text.count - body.count, [.init(DisplayText.escaped(String(body)), "contents")]))
    }
    if layout.omitted > 0 {
      lines.append(ValueTree.omissionLine(layout.omitted, "lines", limit: ValueTree.rowLimit))
    }
    return lines
  }
}
