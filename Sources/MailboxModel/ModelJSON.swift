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
  /// `"bytes","sender","pid","seq","replay_of","error","device","peer","delivery","transfer"}`.
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
    out += ",\"transfer\":\(JSONText.string(orNull: transfer))}"
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

  /// One mailbox as `json(trafficLimit:summaryWidth:)` shows it (also under a device set's groups).
  package func mailboxJSON(_ mailbox: Mailbox, width: Int) -> String {
    var out = "{\"identifier\":\(JSONText.name(mailbox.identifier))"
    out += ",\"identifier_bytes\":\(JSONText.nameBytes(mailbox.identifier)),\"present\":\(mailbox.isOnDisk)"
    let current = mailbox.current
    out += ",\"bytes\":\(jsonNumber(current?.size))"
    out +=
      ",\"modified\":\(JSONText.string(orNull: current.map { TrafficRecord.timestamp($0.modifiedNanoseconds / 1_000_000) }))"
    out += ",\"versions\":\(mailbox.versionCount),\"history\":\(mailbox.history.count)"
    out += ",\"last_change\":\(JSONText.string(TrafficRecord.timestamp(mailbox.lastChange)))"
    out +=
      ",\"last_writer\":\(JSONText.string(orNull: current?.sender)),\"seq\":\(jsonNumber(current?.sequence))"
    out +=
      ",\"summary\":\(JSONText.string(orNull: current.map { TerminalWidth.truncated($0.summary, toColumns: width) }))"
    return out + ",\"error\":\(JSONText.string(orNull: mailbox.error))}"
  }
}

private func jsonNumber<N: BinaryInteger>(_ value: N?) -> String { value.map { String($0) } ?? "null" }
