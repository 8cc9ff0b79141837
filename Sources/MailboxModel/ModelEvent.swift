import WormholeVocabulary

/// What the watcher found when it read one mailbox file.
public enum MailboxObservation: Sendable, Hashable {
  /// A regular file: its content (or `nil` when larger than the watcher stores), size,
  /// modification time in nanoseconds since 1970, and its message on one line (at most
  /// ``MailboxVersion/summaryColumns`` columns), made by whoever read and decoded it: the model
  /// decodes nothing. `transfer` is the file's transfer identifier (its `user.wormhole.transfer`
  /// attribute) when the library that wrote it set one: it pairs the change with the journal
  /// record of the same identifier exactly. `decodeError` is why the bytes are not shown as
  /// the archive they were meant to be (``DecodedMessage/decodeError``), made with the summary.
  case file(
    bytes: [UInt8]?, size: Int, modifiedNanoseconds: Int64, summary: String? = nil, transfer: String? = nil,
    decodeError: String? = nil)
  /// The file exists but could not be read (permissions, a symbolic link, a FIFO...).
  case unreadable(String)
}

/// Everything the model can learn. The watcher produces these; tests write them by hand.
public enum ModelEvent: Sendable, Hashable {
  /// A wormhole directory was found (at start, or created or moved in later).
  case directoryAppeared(FileName)
  /// A wormhole directory was removed or moved away; its mailboxes and history go with it.
  case directoryVanished(FileName)
  /// A directory's full listing: every mailbox in it now. With `initial`, this is what was
  /// there before the model started and makes no traffic; otherwise (a rescan after a queue
  /// overflow, or a poll) every difference is reported as a change, removal or new mailbox.
  case directoryScanned(FileName, mailboxes: [FileName: MailboxObservation], initial: Bool)
  /// One mailbox was written (or could not be read).
  case mailboxChanged(directory: FileName, identifier: FileName, MailboxObservation)
  /// One mailbox file was removed.
  case mailboxRemoved(directory: FileName, identifier: FileName)
  /// New records of a directory's traffic journal, oldest first. With `initial`, these were
  /// already there when the model started: they fill the traffic stream but are not paired with
  /// file events.
  case journalRecords(directory: FileName, [TrafficRecord], initial: Bool)
  /// The directory or its journal could not be read (`nil` clears an earlier error).
  case directoryError(FileName, String?)
  /// The inotify watch limit stopped the watcher from watching this directory, which is polled
  /// from now on.
  case watchLimitReached(directory: FileName, message: String)
  /// Something the operator should know that belongs to no one directory (descriptors ran out,
  /// say); it becomes a notice.
  case notice(String)
  /// Time passed: pairing windows that ended are closed.
  case tick
}

/// What the shell around the reducer should do after an event.
public enum ModelEffect: Sendable, Hashable {
  /// Send ``ModelEvent/tick`` at this time (milliseconds since 1970) to close pairing windows.
  case tick(atMilliseconds: Int64)
  /// New traffic entries were recognized.
  case trafficAppended([TrafficEntry])
  /// Notices were added to ``ModelState/notices``, oldest first: show them as they come.
  case noticesAdded([String])
}

/// A file change not yet paired with a journal record.
struct PendingChange: Sendable {
  enum Kind: Sendable { case written(serial: UInt64, size: Int), removed }
  var kind: Kind
  var milliseconds: Int64
  /// The file's transfer identifier, when it had one: then only the record with it pairs.
  var transfer: String? = nil
}

/// A journal record not yet paired with a file change.
struct PendingRecord: Sendable {
  enum Kind: Sendable { case pass(size: Int), clear, clearAll }
  var kind: Kind
  var entry: UInt64
  var sender: String
  var sequence: UInt64
  /// The record's transfer identifier, when it has one.
  var transfer: String? = nil
  /// When it arrived: pairing by size holds only within the match window of it.
  var milliseconds: Int64 = 0
}
