import WormholeVocabulary

/// The `coordinated-file` transiting type: ``FileTransiting``'s mailboxes, with a byte-range lock
/// per identifier (in the directory's `.wormhole-lock`) held while a mailbox is written, read or
/// removed, so that concurrent writers serialize and a reader never sees a message being
/// replaced. Deleting every message holds the whole file's lock. MMWormhole's
/// `MMWormholeCoordinatedFileTransiting`, with Linux's open-file-description locks for
/// `NSFileCoordinator`.
public struct CoordinatedFileTransiting: WormholeTransiting {
  /// The mailboxes, used under the locks.
  public let files: FileTransiting
  private let coordination: Coordination

  /// Coordinated mailboxes in `directory`.
  public init(directory: String, isDurable: Bool = false) {
    files = FileTransiting(directory: directory, isDurable: isDurable)
    coordination = Coordination(path: files.directory + "/" + Coordination.fileName)
  }

  public var directory: String { files.directory }
  public var transitingType: TransitingType { .coordinatedFile }

  public func writeMessage(_ archive: [UInt8], identifier: String, transfer: String) throws(WormholeError)
    -> TransitingWrite
  {
    try locked(identifier, .exclusive) { () throws(WormholeError) in
      try files.writeMessage(archive, identifier: identifier, transfer: transfer)
    }
  }

  public func message(withIdentifier identifier: String, limit: Int) throws(WormholeError) -> [UInt8]? {
    try locked(identifier, .shared) { () throws(WormholeError) in
      try files.message(withIdentifier: identifier, limit: limit)
    }
  }

  public func deleteMessage(withIdentifier identifier: String) throws(WormholeError) {
    try locked(identifier, .exclusive) { () throws(WormholeError) in
      try files.deleteMessage(withIdentifier: identifier)
    }
  }

  /// Removes the mailbox file `name` under the lock of `identifier` (the name's identifier,
  /// undecodable bytes written as `\x{ff}`).
  public func deleteMessage(named name: FileName, identifier: String) throws(WormholeError) {
    try locked(identifier, .exclusive) { () throws(WormholeError) in
      try files.deleteMessage(named: name)
    }
  }

  public func deleteAllMessages() throws(WormholeError) {
    try coordination.withLock(offset: 0, length: 0, kind: .exclusive) { () throws(WormholeError) in
      try files.deleteAllMessages()
    }
  }

  private func locked<T>(_ identifier: String, _ kind: RangeLock.Kind, _ body: () throws(WormholeError) -> T)
    throws(WormholeError) -> T
  {
    try coordination.withLock(offset: Coordination.offset(for: identifier), length: 1, kind: kind, body)
  }
}
