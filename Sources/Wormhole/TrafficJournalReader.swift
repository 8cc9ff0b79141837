import Dispatch
import Glibc
import Inotify

/// Reads a directory's traffic journal incrementally: each ``readAvailable()`` returns the records
/// appended since the last call, following rotation (the rotated file is drained before the new
/// one is opened) and never returning a sequence number twice.
public final class TrafficJournalReader {
  public let directory: String
  private let path: String
  private var descriptor: Int32 = -1
  private var inode: (dev: UInt64, ino: UInt64) = (0, 0)
  private var offset = 0
  private var pending: [UInt8] = []
  private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
  /// The sequence number of the last record returned (or skipped when starting at the end).
  public private(set) var lastSequence: UInt64?

  /// A reader of the journal in `directory`. With `startingAtEnd`, records already there are
  /// skipped and only later ones are returned.
  public init(directory: String, startingAtEnd: Bool) {
    self.directory = directory
    self.path = directory + "/" + TrafficJournal.fileName
    guard startingAtEnd else { return }
    if openCurrent() {
      var status = stat()
      if fstat(descriptor, &status) == 0 {
        offset = Int(status.st_size)
        lastSequence = TrafficJournal.lastSequence(descriptor: descriptor, size: offset)
      }
    }
  }

  deinit {
    if descriptor >= 0 { _ = close(descriptor) }
  }

  /// The records appended since the last call, oldest first.
  public func readAvailable() -> [TrafficRecord] {
    var records: [TrafficRecord] = []
    for _ in 0..<8 {
      if descriptor < 0 && !openCurrent() { return records }
      drain(into: &records)
      var named = stat()
      if stat(path, &named) != 0 { return records }  // rotated, the new file not there yet
      if UInt64(named.st_dev) == inode.dev && UInt64(named.st_ino) == inode.ino { return records }
      // Rotated (or replaced): what we drained was the old file's end; move to the new one.
      _ = close(descriptor)
      descriptor = -1
      pending.removeAll()
    }
    return records
  }

  private func openCurrent() -> Bool {
    let opened = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard opened >= 0 else { return false }
    var status = stat()
    guard fstat(opened, &status) == 0 else {
      _ = close(opened)
      return false
    }
    descriptor = opened
    inode = (UInt64(status.st_dev), UInt64(status.st_ino))
    offset = 0
    return true
  }

  private func drain(into records: inout [TrafficRecord]) {
    var status = stat()
    if fstat(descriptor, &status) == 0 && Int(status.st_size) < offset {
      // Truncated in place: start over.
      offset = 0
      pending.removeAll()
    }
    while true {
      let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return }
      offset += count
      pending.append(contentsOf: chunk[0..<count])
      guard let lastNewline = pending.lastIndex(of: UInt8(ascii: "\n")) else { continue }
      for line in pending[..<lastNewline].split(separator: UInt8(ascii: "\n")) {
        guard let record = TrafficRecord(jsonLine: String(decoding: line, as: UTF8.self)) else { continue }
        if let lastSequence, record.sequence <= lastSequence { continue }
        lastSequence = record.sequence
        records.append(record)
      }
      pending.removeSubrange(...lastNewline)
    }
  }
}

/// Follows a directory's traffic journal with inotify and hands each batch of new records to a
/// handler on a serial queue. Records arrive in order; a burst is read as one batch.
public final class TrafficJournalFollower: @unchecked Sendable {
  // Everything mutable is confined to `queue`.
  private let queue: DispatchQueue
  private let inotify: Inotify
  private let reader: TrafficJournalReader
  private let source: DispatchSourceRead
  private let handler: @Sendable ([TrafficRecord]) -> Void

  /// Starts following the journal in `directory` (which must exist). With `startingAtEnd`, only
  /// records appended from now on are delivered. The handler runs on a private serial queue.
  public init(
    directory: String, startingAtEnd: Bool = true, handler: @escaping @Sendable ([TrafficRecord]) -> Void
  ) throws(WormholeError) {
    try FileSystem.checkDirectory(directory)
    let queue = DispatchQueue(label: "wormhole.journal-follower")
    let inotify: Inotify
    do {
      inotify = try Inotify()
      try inotify.addWatch(
        directory, mask: [.modify, .create, .movedTo, .deleteSelf, .moveSelf, .onlyDirectory])
    } catch {
      throw .containerUnavailable(path: directory, reason: error.description)
    }
    self.queue = queue
    self.inotify = inotify
    self.reader = TrafficJournalReader(directory: directory, startingAtEnd: startingAtEnd)
    self.handler = handler
    self.source = DispatchSource.makeReadSource(fileDescriptor: inotify.fileDescriptor, queue: queue)
    source.setEventHandler { [weak self] in self?.wake() }
    source.activate()
    if !startingAtEnd { queue.async { [weak self] in self?.deliver() } }
  }

  deinit { source.cancel() }

  /// Stops following; no handler call starts after this returns.
  public func cancel() {
    source.cancel()
    queue.sync {}
  }

  private func wake() {
    guard let events = try? inotify.readEvents() else { return }
    let relevant = events.contains {
      $0.name == TrafficJournal.fileName || $0.mask.contains(.queueOverflow) || $0.name.isEmpty
    }
    if relevant { deliver() }
  }

  private func deliver() {
    guard !source.isCancelled else { return }
    let records = reader.readAvailable()
    if !records.isEmpty { handler(records) }
  }
}
