import WormholeVocabulary

/// The `file` transiting type: one mailbox file per identifier in a directory,
/// `<identifier>.archive`, replaced atomically (a temporary file renamed over it); the wormhole's
/// journal post after the rename is the notification. MMWormhole's `MMWormholeFileTransiting`.
public struct FileTransiting: WormholeTransiting {
  public let directory: String
  /// Whether each mailbox (and its directory) is flushed to disk before the notification.
  public let isDurable: Bool

  /// Mailboxes in `directory` (kept as given, trailing slashes removed).
  public init(directory: String, isDurable: Bool = false) {
    self.directory = trimmingTrailingSlashes(directory)
    self.isDurable = isDurable
  }

  public var transitingType: TransitingType { .file }

  public func writeMessage(_ archive: [UInt8], identifier: String, transfer: String) throws(WormholeError)
    -> TransitingWrite
  {
    let name = MessageIdentifier.fileName(for: identifier)
    let result = archive.withUnsafeBytes { bytes in
      Result { () throws(WormholeError) in
        try FileSystem.writeAtomically(
          bytes, directory: directory, name: name, durable: isDurable, transfer: transfer)
      }
    }
    try result.get()
    return .notified
  }

  public func message(withIdentifier identifier: String, limit: Int) throws(WormholeError) -> [UInt8]? {
    try FileSystem.readMailbox(mailboxPath(identifier), limit: limit)
  }

  public func deleteMessage(withIdentifier identifier: String) throws(WormholeError) {
    try deleteMessage(named: MessageIdentifier.fileName(for: FileName(identifier)))
  }

  /// Removes the mailbox file `name` (matched by bytes, so names that are not valid UTF-8 too):
  /// a regular file or a symbolic link (never followed); anything else is left and reported.
  public func deleteMessage(named name: FileName) throws(WormholeError) {
    try FileSystem.removeMailbox(directory: directory, name: name)
  }

  /// Removes every mailbox of the directory (regular files and symbolic links named
  /// `<valid identifier>.archive`) and nothing else; something named like a mailbox that is not
  /// a file or link is skipped.
  public func deleteAllMessages() throws(WormholeError) {
    for name in try mailboxFileNames() {
      do throws(WormholeError) {
        try FileSystem.removeMailbox(directory: directory, name: name)
      } catch {
        if case .notAMailbox = error { continue }
        throw error
      }
    }
  }

  /// The mailbox file names of the directory, sorted by their bytes.
  public func mailboxFileNames() throws(WormholeError) -> [FileName] {
    try FileSystem.entries(of: directory).filter { MessageIdentifier.identifier(fromFileName: $0) != nil }
      .sorted()
  }

  func mailboxPath(_ identifier: String) -> String {
    directory + "/" + MessageIdentifier.fileName(for: identifier)
  }
}
