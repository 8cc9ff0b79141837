import ArchivedValues
import MailboxModel
import PropertyList
import TerminalScreen
import WormholeVocabulary

/// A mailbox payload as a bridge publishes it
/// (`{"directory","directory_bytes","mailbox":{…as dump --json…},"archive_base64","archive_note"}`),
/// checked: the archive decoded from base64 (at most ``FleetState/archiveByteLimit``), the
/// texts that reach the screen (summary, error, note) escaped.
public struct RemoteMailboxPayload: Sendable {
  /// The payload as published (a JSON object), for `dump --broker --json`.
  public var text: String
  public var archive: [UInt8]?
  /// Why there is no archive, as the bridge said (escaped).
  public var archiveNote: String?
  public var size: Int
  /// When the archive was modified (milliseconds since 1970, at most 2262-04-11), `nil` when
  /// the payload does not say or says another time.
  public var modifiedMilliseconds: Int64?
  public var lastChange: Int64?
  /// The value on one line (escaped, at most ``MailboxModel/MailboxVersion/summaryColumns``).
  public var summary: String?
  public var sender: String?
  public var sequence: UInt64?
  /// Why the mailbox could not be read there (escaped).
  public var error: String?

  /// Why a payload was refused.
  public struct Problem: Error, Sendable {
    public var reason: String
  }

  /// `milliseconds` as a modification time, `nil` unless a file's can be it: from 1970 to when
  /// nanoseconds since 1970 fill an `Int64` (2262-04-11), as a version keeps it. The format
  /// writes years 0000 to 9999; those beyond once overflowed the dashboard (it crashed).
  static func modificationTime(_ milliseconds: Int64) -> Int64? {
    (0...Int64.max / 1_000_000).contains(milliseconds) ? milliseconds : nil
  }

  /// `bytes` read as a bridge's mailbox payload, or why it is not one.
  public static func parse(_ bytes: [UInt8]) -> Result<RemoteMailboxPayload, Problem> {
    guard let text = String(validating: bytes, as: UTF8.self) else {
      return .failure(Problem(reason: "a mailbox payload that is not UTF-8"))
    }
    let top: FleetJSON
    switch FleetJSON.parse(text) {
    case .success(let object): top = object
    case .failure(let problem): return .failure(Problem(reason: "a mailbox payload: " + problem.reason))
    }
    guard let fields = top.object("mailbox") else {
      return .failure(Problem(reason: "a mailbox payload that is not the bridge's JSON object"))
    }
    var archive: [UInt8]?
    if let base64 = top.string("archive_base64") {
      guard let decoded = Base64.decoded(base64) else {
        return .failure(Problem(reason: "an archive that is not base64"))
      }
      guard decoded.count <= FleetState.archiveByteLimit else {
        return .failure(
          Problem(reason: "an archive of \(decoded.count) bytes, above \(FleetState.archiveByteLimit)"))
      }
      archive = decoded
    }
    return .success(
      RemoteMailboxPayload(
        text: text, archive: archive, archiveNote: top.text("archive_note").map(DisplayText.escaped),
        size: Int(clamping: max(fields.integer("bytes") ?? Int64(archive?.count ?? 0), 0)),
        modifiedMilliseconds: fields.string("modified").flatMap(TrafficRecord.milliseconds(fromTimestamp:))
          .flatMap(
            Self.modificationTime),
        lastChange: fields.string("last_change").flatMap(TrafficRecord.milliseconds(fromTimestamp:)),
        summary: fields.text("summary").map {
          TerminalWidth.truncated(DisplayText.escaped($0), toColumns: MailboxVersion.summaryColumns)
        },
        sender: fields.text("last_writer"), sequence: fields.integer("seq").flatMap { UInt64(exactly: $0) },
        error: fields.text("error").map(DisplayText.escaped)))
  }
}
