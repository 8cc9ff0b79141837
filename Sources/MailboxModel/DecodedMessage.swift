import ArchivedValues
import TerminalScreen

/// A mailbox version's message, decoded: a value the pure layers are handed, never make.
///
/// The model and the dashboard decode nothing. The watcher summarizes each version as it reads
/// it (``MailboxVersion/summary``), and the dashboard asks its loop for the full decoding of the
/// versions it shows (a `decode` effect), which arrives back as one of these.
public enum DecodedMessage: Sendable {
  /// The inspector's view of the archive.
  case message(Inspection)
  /// The bytes are not a readable property list; the reason says what is wrong.
  case undecodable(String)
  /// The model did not keep the bytes (the file was larger than the watcher stores).
  case notStored(size: Int)

  /// One line for a list row, cut to `width` terminal columns.
  public func summary(width: Int) -> String {
    switch self {
    case .message(let inspection): return inspection.summary(width: width)
    case .undecodable(let reason):
      return TerminalWidth.truncated("(undecodable: \(reason))", toColumns: width)
    case .notStored(let size): return DecodedMessage.notStoredSummary(size: size)
    }
  }

  /// The value as JSON (the inspector's JSON of the root value), or `null`.
  public var json: String {
    guard case .message(let inspection) = self else { return "null" }
    return inspection.root.json()
  }

  /// The summary of a version whose bytes were not kept.
  static func notStoredSummary(size: Int) -> String { "(\(size) bytes, not kept)" }
}
