import Glibc

/// Reads a directory's traffic journal incrementally: each ``readAvailable()`` returns the records
/// appended since the last call, following rotation (the rotated file is drained before the new
/// one is opened) and never returning a line twice.
///
/// What was read is tracked by position (which file, how far), not by sequence number, so that
/// numbers written by someone else cannot make it skip anything: a journal replaced, deleted and
/// created again, or truncated is read again from its start (a *restart*, counted in
/// ``restartCount``), and every record is returned whatever its number.
///
/// It touches no inotify and starts no thread: whoever owns the change notifications drives it,
/// calling ``readAvailable()`` when the journal (or its directory) changed. In the live model
/// that is the `MailboxWatcher`, with its one `Inotify` for every directory; for the library's
/// listeners and `tail --follow`, a ``TrafficJournalFollower``.
public final class TrafficJournalReader {
  public let directory: String
  private let path: String
  private let rotatedPath: String
  private var descriptor: Int32 = -1
  private var identity = FileIdentity(device: 0, inode: 0)
  private var offset = 0
  private var pending: [UInt8] = []
  /// Where in its file `pending` starts.
  private var pendingStart = 0
  /// Set after an over-long line was dropped: bytes are skipped up to the next newline.
  private var skippingLine = false
  /// The file read last before the current one (the current file before a rotation, or the
  /// rotated file), with how far: when the rotated file is that one, it is read only past that
  /// point. Only the last is kept: an inode number freed by a rotation is soon given to another
  /// file, so an older identity could name a file never read.
  private var finished: (identity: FileIdentity, offset: Int)?

  /// The longest line kept; a record is far shorter (identifiers and senders are bounded), so a
  /// longer one is not a record, and dropping it keeps a damaged journal from filling memory.
  static let maximumLineLength = 64 * 1024
  /// The most of one file read when starting from its beginning: a journal this library writes
  /// rotates long before, so only a foreign or damaged one is cut (its oldest part is skipped).
  static let maximumBacklog = 64 << 20
  private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
  /// The sequence number of the last record returned from the current file (or the last one
  /// there when starting at the end). Informational: reading does not depend on it.
  public private(set) var lastSequence: UInt64?
  /// How many times the journal was found replaced (deleted and created again, or another file
  /// renamed over it) or truncated, or numbering went back (a smaller sequence number than the
  /// last one returned), since this reader started.
  public private(set) var restartCount = 0
  /// Why the journal could not be read at the last attempt (a link, FIFO, device, directory or
  /// a file without permission in its place), or `nil` when it could (or is simply absent).
  public private(set) var problem: WormholeError?
  /// What the last ``readAvailable()`` found besides records, in the order found: lines skipped,
  /// numbering that jumped, records rotated away unread.
  public private(set) var irregularities: [TrafficJournalIrregularity] = []
  /// The sequence number of the last record returned from any file: a jump is measured from it.
  private var lastReturned: UInt64?
  /// Lines skipped since the last record returned: a gap they explain is not a jump.
  private var skippedSinceLastRecord = 0
  /// Set when the rotated file about to be read is not the one this reader finished: whole
  /// generations may have been rotated away in between.
  private var mayHaveMissedGeneration = false

  struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
    init(device: UInt64, inode: UInt64) {
      self.device = device
      self.inode = inode
    }
    init(_ status: stat) { self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) }
  }

  /// A reader of the journal in `directory`. With `startingAtEnd`, records already there are
  /// skipped and every record appended later is returned; otherwise every retained record is
  /// returned too (the rotated file's, then the current file's).
  public init(directory: String, startingAtEnd: Bool) {
    self.directory = directory
    self.path = directory + "/" + TrafficJournal.fileName
    self.rotatedPath = directory + "/" + TrafficJournal.rotatedFileName
    guard startingAtEnd else { return }
    // What the rotated file holds now is not new.
    if let (rotated, status) = try? TrafficJournal.openJournal(rotatedPath, writable: false) {
      finished = (FileIdentity(status), Int(status.st_size))
      lastSequence = TrafficJournal.lastSequence(descriptor: rotated, size: Int(status.st_size))
      _ = close(rotated)
    }
    if openCurrent() {
      var status = stat()
      if fstat(descriptor, &status) == 0 {
        offset = Int(status.st_size)
        lastSequence = TrafficJournal.lastSequence(descriptor: descriptor, size: offset) ?? lastSequence
      }
    }
    lastReturned = lastSequence
  }

  deinit {
    if descriptor >= 0 { _ = close(descriptor) }
  }

  /// The records appended since the last call, oldest first. When the journal cannot be read,
  /// returns what it could and sets ``problem``.
  ///
  /// A reader that falls more than one rotation behind has lost the generations in between
  /// (only one rotated file is kept); the gap shows in the sequence numbers.
  public func readAvailable() -> [TrafficRecord] {
    var records: [TrafficRecord] = []
    irregularities.removeAll()
    for _ in 0..<8 {
      if descriptor < 0 {
        // Before opening the current file, take what the rotated one holds that was not read:
        // after a rotation it is the generation we have not finished.
        drainRotatedGeneration(into: &records)
        if !openCurrent() { return records }
      }
      drain(into: &records)
      var named = stat()
      if lstat(path, &named) != 0 {
        // Rotated, the new file not there yet: keep reading this one until it appears. Deleted
        // (no link left; no appender writes to a file no longer named): let it go, which also
        // lets the directory be removed (an open file pins its directory).
        var opened = stat()
        if fstat(descriptor, &opened) == 0 && opened.st_nlink == 0 {
          remember(identity, offset)
          _ = close(descriptor)
          descriptor = -1
          pending.removeAll()
          skippingLine = false
          restartCount += 1
        }
        return records
      }
      if FileIdentity(named) == identity { return records }
      // Rotated, or replaced: what we drained was the old file's end; move on.
      remember(identity, offset)
      _ = close(descriptor)
      descriptor = -1
      pending.removeAll()
      skippingLine = false
      // A rotation leaves the old file as the rotated one; anything else is a replacement.
      var rotated = stat()
      if lstat(rotatedPath, &rotated) != 0 || FileIdentity(rotated) != identity { restartCount += 1 }
    }
    return records
  }

  private func remember(_ file: FileIdentity, _ offset: Int) {
    finished = (file, offset)
  }

  private func drainRotatedGeneration(into records: inout [TrafficRecord]) {
    guard let (rotated, status) = try? TrafficJournal.openJournal(rotatedPath, writable: false) else {
      return
    }
    defer { _ = close(rotated) }
    let file = FileIdentity(status)
    let size = Int(status.st_size)
    // A rotated file other than the one last finished, after reading another: the generations
    // between may be lost (or there were none; the numbers tell).
    mayHaveMissedGeneration = finished != nil && finished?.identity != file
    defer { mayHaveMissedGeneration = false }
    var start = finished.flatMap { $0.identity == file ? $0.offset : nil } ?? 0
    if start > size { start = 0 }  // truncated since
    guard start < size else { return }
    // Its own lines only: a partial line of the current file does not continue into it, and an
    // unterminated last line of its own is a torn write.
    let saved = (pending, skippingLine, pendingStart)
    pending = []
    skippingLine = false
    if size - start > Self.maximumBacklog {
      start = size - Self.maximumBacklog
      skippingLine = true
    }
    var position = start
    while position < size {
      let count = chunk.withUnsafeMutableBytes {
        pread(rotated, $0.baseAddress, min($0.count, size - position), off_t(position))
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      consume(chunk[0..<count], at: position, of: rotatedPath, into: &records)
      position += count
    }
    remember(file, position)
    (pending, skippingLine, pendingStart) = saved
  }

  /// Parses the complete lines in `bytes`, which start at byte `start` of the file at `path`.
  private func append(
    lines bytes: ArraySlice<UInt8>, at start: Int, of path: String, to records: inout [TrafficRecord]
  ) {
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
      guard let record = TrafficRecord(jsonLineBytes: line) else {
        skipped(at: start + line.startIndex - bytes.startIndex, of: path)
        continue
      }
      if let lastSequence, record.sequence <= lastSequence { restartCount += 1 }
      noteJump(to: record.sequence, in: path)
      lastSequence = record.sequence
      lastReturned = record.sequence
      skippedSinceLastRecord = 0
      records.append(record)
    }
  }

  /// Counts a skipped line, merged with the previous skip of the same read and file.
  private func skipped(at position: Int, of path: String) {
    skippedSinceLastRecord += 1
    if case .skippedLines(path, let first, let count)? = irregularities.last {
      irregularities[irregularities.count - 1] = .skippedLines(path: path, offset: first, count: count + 1)
    } else {
      irregularities.append(.skippedLines(path: path, offset: position, count: 1))
    }
  }

  /// Says how numbering went forward by more than one, when nothing skipped explains it.
  private func noteJump(to sequence: UInt64, in path: String) {
    guard let last = lastReturned, sequence > last + 1 else { return }
    let gap = sequence - last - 1
    if mayHaveMissedGeneration && gap <= TrafficJournalIrregularity.plausibleLoss {
      irregularities.append(.rotatedAway(path: path, after: last, before: sequence))
    } else if UInt64(skippedSinceLastRecord) < gap {
      irregularities.append(.sequenceJump(path: path, from: last, to: sequence))
    }
  }

  private func openCurrent() -> Bool {
    do {
      guard let (opened, status) = try TrafficJournal.openJournal(path, writable: false) else {
        problem = nil
        return false
      }
      problem = nil
      descriptor = opened
      identity = FileIdentity(status)
      // A new current file is read from its start: it is never one already read (an inode
      // number freed by a rotation is often given to the next file created). Its first number
      // is not compared with the old file's: a replacement was counted when it was seen.
      offset = 0
      lastSequence = nil
      return true
    } catch {
      problem = error
      return false
    }
  }

  private func drain(into records: inout [TrafficRecord]) {
    var status = stat()
    if fstat(descriptor, &status) == 0 && Int(status.st_size) < offset {
      // Truncated in place: start over.
      offset = 0
      lastSequence = nil
      pending.removeAll()
      skippingLine = false
      restartCount += 1
    }
    if offset == 0 && Int(status.st_size) > Self.maximumBacklog {
      offset = Int(status.st_size) - Self.maximumBacklog
      skippingLine = true
    }
    while true {
      let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return }
      consume(chunk[0..<count], at: offset, of: path, into: &records)
      offset += count
    }
  }

  /// Adds bytes to the partial line and returns the complete records, dropping any line longer
  /// than ``maximumLineLength`` (up to its newline, however far that is).
  /// `bytes` start at byte `position` of the file at `path`.
  private func consume(
    _ bytes: ArraySlice<UInt8>, at position: Int, of path: String, into records: inout [TrafficRecord]
  ) {
    var bytes = bytes
    if skippingLine {
      guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return }
      bytes = bytes[(newline + 1)...]
      skippingLine = false
    }
    if pending.isEmpty { pendingStart = position + (bytes.startIndex - 0) }
    pending.append(contentsOf: bytes)
    if let lastNewline = pending.lastIndex(of: UInt8(ascii: "\n")) {
      append(lines: pending[..<lastNewline], at: pendingStart, of: path, to: &records)
      pending.removeSubrange(...lastNewline)
      pendingStart += lastNewline + 1
    }
    if pending.count > Self.maximumLineLength {
      skipped(at: pendingStart, of: path)
      pending.removeAll()
      skippingLine = true
    }
  }
}
