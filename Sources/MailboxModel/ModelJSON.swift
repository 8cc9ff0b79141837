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
  /// `"bytes","sender","pid","seq","replay_of","error"}`.
  public var jsonLine: String {
    var out = "{\"id\":\(id),\"time\":\(JSONText.string(TrafficRecord.timestamp(milliseconds)))"
    out += ",\"kind\":\(JSONText.string(kind.rawValue)),\"directory\":\(jsonName(directory))"
    out += ",\"directory_bytes\":\(jsonNameBytes(directory))"
    out += ",\"identifier\":\(jsonName(identifier)),\"identifier_bytes\":\(jsonNameBytes(identifier))"
    out += ",\"transiting\":\(jsonString(transiting))"
    out += ",\"bytes\":\(size),\"sender\":\(jsonString(sender)),\"pid\":\(jsonNumber(processIdentifier))"
    out +=
      ",\"seq\":\(jsonNumber(sequence)),\"replay_of\":\(jsonNumber(replayOf)),\"error\":\(jsonString(error))}"
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
      out += "{\"path\":\(jsonName(directory.path)),\"path_bytes\":\(jsonNameBytes(directory.path))"
      out += ",\"polled\":\(directory.isPolled)"
      out += ",\"error\":\(jsonString(directory.error)),\"mailboxes\":["
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

  private func mailboxJSON(_ mailbox: Mailbox, width: Int) -> String {
    var out = "{\"identifier\":\(jsonName(mailbox.identifier))"
    out += ",\"identifier_bytes\":\(jsonNameBytes(mailbox.identifier)),\"present\":\(mailbox.isOnDisk)"
    let current = mailbox.current
    out += ",\"bytes\":\(jsonNumber(current?.size))"
    out +=
      ",\"modified\":\(jsonString(current.map { TrafficRecord.timestamp($0.modifiedNanoseconds / 1_000_000) }))"
    out += ",\"versions\":\(mailbox.versionCount),\"history\":\(mailbox.history.count)"
    out += ",\"last_change\":\(JSONText.string(TrafficRecord.timestamp(mailbox.lastChange)))"
    out += ",\"last_writer\":\(jsonString(current?.sender)),\"seq\":\(jsonNumber(current?.sequence))"
    out += ",\"summary\":\(jsonString(current.map { TerminalWidth.truncated($0.summary, toColumns: width) }))"
    return out + ",\"error\":\(jsonString(mailbox.error))}"
  }
}

private func jsonString(_ text: String?) -> String { text.map(JSONText.string) ?? "null" }

private func jsonNumber<N: BinaryInteger>(_ value: N?) -> String { value.map { String($0) } ?? "null" }

/// A name as a JSON string: exact for UTF-8, the lossy text otherwise (see ``jsonNameBytes``).
private func jsonName(_ name: FileName) -> String { JSONText.string(name.string ?? name.lossyText) }

/// `null` for a name that is valid UTF-8, else its bytes as lowercase hexadecimal.
private func jsonNameBytes(_ name: FileName) -> String {
  guard !name.isText else { return "null" }
  let digits = Array("0123456789abcdef".utf8)
  var hex: [UInt8] = [UInt8(ascii: "\"")]
  for byte in name.bytes {
    hex.append(digits[Int(byte >> 4)])
    hex.append(digits[Int(byte & 0xf)])
  }
  hex.append(UInt8(ascii: "\""))
  return String(decoding: hex, as: UTF8.self)
}
