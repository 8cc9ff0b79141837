import KeyedArchive
import MailboxModel

/// Where mailbox versions are decoded: on the watcher's queue (a summary per version, as it is
/// read) and on the dashboard executor's queue (a version in full, when the contents pane shows
/// it). Never on the dashboard's loop: the model and the dashboard are handed the results.
extension DecodedMessage {
  /// The message of `version`, decoded with the `KeyedArchiveInspector`.
  public init(decoding version: MailboxVersion) {
    self.init(decoding: version.bytes, size: version.size)
  }

  /// The message in `bytes` (`nil` when they were not kept, for a file of `size` bytes),
  /// decoded with the `KeyedArchiveInspector`.
  public init(decoding bytes: [UInt8]?, size: Int) {
    guard let bytes else {
      self = .notStored(size: size)
      return
    }
    do {
      self = .message(try KeyedArchiveInspector().inspect(bytes))
    } catch {
      self = .undecodable(String(describing: error))
    }
  }
}

extension MailboxObservation {
  /// A regular file's observation with its message summarized
  /// (``MailboxModel/MailboxVersion/summaryColumns`` wide), for the tree's rows: the file is
  /// decoded here, by whoever read it, so that no view or reducer has to.
  public static func summarized(
    bytes: [UInt8]?, size: Int, modifiedNanoseconds: Int64, transfer: String? = nil
  ) -> MailboxObservation {
    let decoded = bytes.map { DecodedMessage(decoding: $0, size: size) }
    return .file(
      bytes: bytes, size: size, modifiedNanoseconds: modifiedNanoseconds,
      summary: decoded?.summary(width: MailboxVersion.summaryColumns), transfer: transfer,
      decodeError: decoded?.decodeError)
  }

  /// This observation with its message summarized, when it is a file read without one.
  public var summarized: MailboxObservation {
    guard case .file(let bytes, let size, let modified, nil, let transfer, _) = self, bytes != nil else {
      return self
    }
    return .summarized(bytes: bytes, size: size, modifiedNanoseconds: modified, transfer: transfer)
  }
}
