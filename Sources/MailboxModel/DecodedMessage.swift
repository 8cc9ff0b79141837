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
      // The reason can quote the file (an XML reader's does): escaped, as a summary never holds
      // a control character.
      return TerminalWidth.truncated("(undecodable: \(DisplayText.escaped(reason)))", toColumns: width)
    case .notStored(let size): return DecodedMessage.notStoredSummary(size: size)
    }
  }

  /// Why the message is not shown as the archive it was meant to be: the reason a damaged
  /// archive is shown as its property list (its summary starts ``Inspection/damagedPrefix``), or
  /// why the bytes are not a readable property list at all; `nil` for an archive, a plain
  /// property list (a value like any other) and bytes that were not kept. Not escaped; at most
  /// ``reasonScalars`` Unicode scalars, since an XML reader's reason quotes the file.
  public var decodeError: String? {
    let reason: String
    switch self {
    case .message(let inspection):
      guard let notArchive = inspection.notArchiveReason, !inspection.isPlainPropertyList else { return nil }
      reason = notArchive.description
    case .undecodable(let why): reason = why
    case .notStored: return nil
    }
    let scalars = reason.unicodeScalars
    guard scalars.count > Self.reasonScalars else { return reason }
    return String(String.UnicodeScalarView(scalars.prefix(Self.reasonScalars - 1))) + "…"
  }

  /// The longest ``decodeError`` kept, in Unicode scalars: a reason longer than this is cut, so
  /// that a file cannot make every copy of its version large.
  public static let reasonScalars = 512

  /// The value as JSON (the inspector's JSON of the root value), or `null`.
  public var json: String {
    guard case .message(let inspection) = self else { return "null" }
    return inspection.root.json()
  }

  /// The summary of a version whose bytes were not kept.
  static func notStoredSummary(size: Int) -> String { "(\(size) bytes, not kept)" }
}
