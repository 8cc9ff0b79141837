import DeviceSession
import Foundation
import KeyedArchive
import WormholeVocabulary

/// How `device run` shows what a session receives: one line per message, as text or JSON
/// (`{"identifier", "transiting", "message", "sequence", "time"}`, the message the archive
/// decoded by the inspector, as `read --json` prints it).
enum SessionLines {
  /// One received archive: its identifier, transiting type, sequence (message number, context
  /// version or transfer id) and the sender's time in nanoseconds since 1970.
  struct Entry {
    var identifier: String
    var transiting: TransitingType
    var payload: [UInt8]?
    var sequence: UInt64
    var time: Int64
    var extra: [(key: String, json: String)] = []
  }

  /// The entries a delivery shows, none for a change of state (said on standard error instead).
  static func entries(_ delivery: SessionDelivery) -> [Entry] {
    switch delivery {
    case .message(let message):
      return [
        Entry(
          identifier: message.identifier, transiting: .sessionMessage, payload: message.payload,
          sequence: message.sequence, time: message.time,
          extra: [("replyRequested", message.replyRequested ? "true" : "false")])
      ]
    case .context(let received):
      let shown =
        received.changedIdentifiers.isEmpty ? received.context.identifiers : received.changedIdentifiers
      return shown.map { identifier in
        Entry(
          identifier: identifier, transiting: .sessionContext, payload: received.context.entries[identifier],
          sequence: received.context.version, time: received.time)
      }
    case .transfer(let transfer):
      return [
        Entry(
          identifier: transfer.identifier, transiting: .sessionFile, payload: transfer.payload,
          sequence: transfer.id, time: transfer.time)
      ]
    case .activated, .reachabilityChanged, .transferFinished, .failure:
      return []
    }
  }

  static func line(_ entry: Entry, json: Bool) -> String {
    let inspection = entry.payload.map { try? KeyedArchiveInspector().inspect(Data($0)) }
    if json {
      var line = "{\"identifier\":\(DisplayText.jsonString(entry.identifier))"
      line += ",\"transiting\":\(DisplayText.jsonString(entry.transiting.rawValue))"
      switch inspection {
      case nil: line += ",\"message\":null"
      case .some(nil): line += ",\"message\":null,\"error\":\"the archive cannot be decoded\""
      case .some(let decoded?): line += ",\"message\":" + decoded.root.json()
      }
      line += ",\"sequence\":\(entry.sequence)"
      line += ",\"time\":\(DisplayText.jsonString(UTCTimestamp.text(ofMilliseconds: entry.time / 1_000_000)))"
      for (key, value) in entry.extra { line += ",\(DisplayText.jsonString(key)):\(value)" }
      return line + "}"
    }
    let summary =
      switch inspection {
      case nil: "(removed)"
      case .some(nil): "(unreadable)"
      case .some(let decoded?): decoded.root.summary(width: 4096)
      }
    return
      "\(entry.transiting.rawValue) #\(entry.sequence) \(DisplayText.field(entry.identifier)): \(summary)"
  }

  /// A reply's archive as JSON (plain JSON where the reply is JSON-like), for `pass`.
  static func reply(_ payload: [UInt8]) throws(CommandError) -> String {
    try MessageRendering.inspect(Data(payload), source: "the reply").root.json()
  }

  /// `value`, the JSON of `--reply` or a `pass` VALUE, as archive bytes.
  static func archive(_ value: ArchivedValue) throws(CommandError) -> [UInt8] {
    do {
      return try KeyedArchiveEncoder().encodeBytes(value)
    } catch {
      throw .failure("cannot archive the message: \(error.description)")
    }
  }
}
