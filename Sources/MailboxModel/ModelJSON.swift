import TerminalScreen
import WormholeVocabulary

/// JSON renderings of the model, as `wormhole-tui dump --json` prints them. The layout is stable
/// and documented in the MailboxModel README section: members are never renamed or removed, and
/// absent values are `null` rather than missing.
///
/// Names (paths and identifiers) are file names, so bytes: one that is valid UTF-8 is its JSON
/// string exactly; one that is not is its lossy text (each undecodable byte as `\x{ff}`) and its
/// exact bytes in hexadecimal in the `…_bytes` member next to it, which is `null` otherwise.
extension TrafficEntry {
  /// The entry as one JSON object on one line:
  /// `{"id","time","kind","directory","directory_bytes","identifier","identifier_bytes","transiting",`
  /// `"bytes","sender","pid","seq","replay_of","error","device","peer","delivery","transfer",`
  /// `"route","payload"}`: `route` the route a push or a deep link took on the device, the
  /// object its record holds (`{"taken":"catcher"|"delegate"|"unhandled",…}`), and `payload`
  /// what it carried (the push's JSON as text, or the URL) when the record kept it; `null`
  /// otherwise.
  public var jsonLine: String {
    var out = "{\"id\":\(id),\"time\":\(JSONText.string(TrafficRecord.timestamp(milliseconds)))"
    out += ",\"kind\":\(JSONText.string(kind.rawValue)),\"directory\":\(JSONText.name(directory))"
    out += ",\"directory_bytes\":\(JSONText.nameBytes(directory))"
    out +=
      ",\"identifier\":\(JSONText.name(identifier)),\"identifier_bytes\":\(JSONText.nameBytes(identifier))"
    out += ",\"transiting\":\(JSONText.string(orNull: transiting))"
    out +=
      ",\"bytes\":\(size),\"sender\":\(JSONText.string(orNull: sender)),\"pid\":\(jsonNumber(processIdentifier))"
    out +=
      ",\"seq\":\(jsonNumber(sequence)),\"replay_of\":\(jsonNumber(replayOf)),\"error\":\(JSONText.string(orNull: error))"
    out += ",\"device\":\(JSONText.string(orNull: device)),\"peer\":\(JSONText.string(orNull: peer))"
    out += ",\"delivery\":\(JSONText.string(orNull: delivery?.rawValue))"
    out += ",\"transfer\":\(JSONText.string(orNull: transfer))"
    // The route is embedded as the object it is, only when it reads as one.
    let routeObject = details.route.flatMap { text in
      TrafficRoute(json: text) == nil || text.utf8.contains(where: { $0 < 0x20 }) ? nil : text
    }
    out += ",\"route\":\(routeObject ?? "null"),\"payload\":\(JSONText.string(orNull: payload))}"
    return out
  }
}

extension ModelState {
  /// The whole model as one JSON document: directories sorted by path, each with its mailboxes
  /// sorted by identifier (cleared ones included, `present` false; present but unreadable ones
  /// `present` true with their `error`), then the newest
  /// `trafficLimit` traffic entries, oldest first.
  public func json(trafficLimit: Int, summaryWidth: Int = 200) -> String {
    var out = "{\"directories\":["
    for (directoryIndex, directory) in sortedDirectories.enumerated() {
      if directoryIndex > 0 { out += "," }
      out += "{\"path\":\(JSONText.name(directory.path)),\"path_bytes\":\(JSONText.nameBytes(directory.path))"
      out += ",\"polled\":\(directory.isPolled)"
      out += ",\"error\":\(JSONText.string(orNull: directory.error)),\"mailboxes\":["
      for (mailboxIndex, mailbox) in directory.sortedMailboxes.enumerated() {
        if mailboxIndex > 0 { out += "," }
        out += mailboxJSON(mailbox, width: summaryWidth)
      }
      out += "]}"
    }
    out += "],\"traffic\":["
    out += traffic.suffix(max(trafficLimit, 0)).map(\.jsonLine).joined(separator: ",")
    out += "],\"dropped_traffic\":\(droppedTrafficCount),\"notices\":["
    out += notices.map(JSONText.string).joined(separator: ",")
    return out + "]}"
  }

  /// One mailbox as `json(trafficLimit:summaryWidth:)` shows it (also under a device set's groups
  /// and in a bridge's payload): `error` why the file could not be read (the previous version,
  /// if any, kept), `decode_error` why the current message is not shown as the archive it was
  /// meant to be (``MailboxVersion/decodeError``; its `summary` then shows what was read).
  package func mailboxJSON(_ mailbox: Mailbox, width: Int) -> String {
    var out: [UInt8] = []
    appendMailboxJSON(mailbox, width: width, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// ``mailboxJSON(_:width:)`` appended to `out` as UTF-8, built as bytes: the bridge writes one
  /// at every mailbox change, and building it as a string (interpolations, each timestamp and
  /// number a string of its own) took 6% of its time per change.
  package func appendMailboxJSON(_ mailbox: Mailbox, width: Int, to out: inout [UInt8]) {
    out.reserveCapacity(out.count + 320)
    JSONBytes.appendLiteral(#"{"identifier":"#, to: &out)
    JSONBytes.appendName(mailbox.identifier, to: &out)
    JSONBytes.appendLiteral(#","identifier_bytes":"#, to: &out)
    JSONBytes.appendNameBytes(mailbox.identifier, to: &out)
    JSONBytes.appendLiteral(#","present":"#, to: &out)
    JSONBytes.appendLiteral(mailbox.isOnDisk ? "true" : "false", to: &out)
    let current = mailbox.current
    JSONBytes.appendLiteral(#","bytes":"#, to: &out)
    JSONBytes.appendNumber(current?.size, to: &out)
    JSONBytes.appendLiteral(#","modified":"#, to: &out)
    if let current {
      JSONBytes.appendTimestamp(current.modifiedNanoseconds / 1_000_000, to: &out)
    } else {
      JSONBytes.appendLiteral("null", to: &out)
    }
    JSONBytes.appendLiteral(#","versions":"#, to: &out)
    JSONBytes.appendDecimal(mailbox.versionCount, to: &out)
    JSONBytes.appendLiteral(#","history":"#, to: &out)
    JSONBytes.appendDecimal(mailbox.history.count, to: &out)
    JSONBytes.appendLiteral(#","last_change":"#, to: &out)
    JSONBytes.appendTimestamp(mailbox.lastChange, to: &out)
    JSONBytes.appendLiteral(#","last_writer":"#, to: &out)
    JSONBytes.appendString(orNull: current?.sender, to: &out)
    JSONBytes.appendLiteral(#","seq":"#, to: &out)
    JSONBytes.appendNumber(current?.sequence, to: &out)
    JSONBytes.appendLiteral(#","summary":"#, to: &out)
    let summary = current.map { TerminalWidth.truncated($0.summary, toColumns: width) }
    JSONBytes.appendString(orNull: summary, to: &out)
    JSONBytes.appendLiteral(#","error":"#, to: &out)
    JSONBytes.appendString(orNull: mailbox.error, to: &out)
    JSONBytes.appendLiteral(#","decode_error":"#, to: &out)
    JSONBytes.appendString(orNull: current?.decodeError, to: &out)
    out.append(UInt8(ascii: "}"))
  }
}

private func jsonNumber<N: BinaryInteger>(_ value: N?) -> String { value.map { String($0) } ?? "null" }
