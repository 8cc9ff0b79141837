import Glibc
import MailboxModel
import Wormhole
import WormholeVocabulary

/// What identifies one state of a file cheaply: a fingerprint of its inode, size, modification
/// and status-change times. If it did not change, neither did the file. Eight bytes, because the
/// watcher keeps one per mailbox (100,000 mailboxes must fit well under 100 MB).
struct FileStamp: Hashable, Sendable {
  var fingerprint: UInt64

  init(_ status: stat) {
    // FNV-1a over the four fields.
    var hash = FNV1a()
    for field in [
      UInt64(status.st_ino), UInt64(bitPattern: Int64(status.st_size)),
      UInt64(bitPattern: Int64(status.st_mtim.tv_sec)) &* 1_000_000_000
        &+ UInt64(bitPattern: Int64(status.st_mtim.tv_nsec)),
      UInt64(bitPattern: Int64(status.st_ctim.tv_sec)) &* 1_000_000_000
        &+ UInt64(bitPattern: Int64(status.st_ctim.tv_nsec)),
    ] {
      hash.add(littleEndian: field)
    }
    fingerprint = hash.value
  }
}

/// One directory's entries, as far as the model cares. Names are the entries' exact bytes.
struct DirectoryListing {
  /// The identifiers of the mailboxes (`<identifier>.archive`).
  var mailboxes: [FileName] = []
  var subdirectories: [FileName] = []
  var hasJournal = false
}

/// POSIX reads of wormhole directories and mailboxes: `opendir`/`readdir`, `openat`, `fstat`,
/// `read`. (Foundation's file attributes cost three times a whole scan.) Names go to the system
/// as their bytes, so every entry can be listed and opened, valid UTF-8 or not.
enum DirectoryScanner {
  private static let journalNames: [FileName] = [
    FileName(TrafficJournal.fileName), FileName(TrafficJournal.rotatedFileName),
  ]

  /// The entries of `path`, or the `errno` that stopped listing it.
  static func list(_ path: FileName) -> Result<DirectoryListing, ScanError> {
    var listing = DirectoryListing()
    let failure = FileSystem.forEachEntry(of: path) { entry in
      if entry.isDirectory {
        listing.subdirectories.append(entry.name)
      } else if journalNames.contains(entry.name) {
        listing.hasJournal = true
      } else if let identifier = identifier(ofFileName: entry.name) {
        listing.mailboxes.append(identifier)
      }
    }
    if let failure { return .failure(ScanError(code: failure)) }
    return .success(listing)
  }

  /// The identifier a mailbox file name stands for (its bytes before `.archive`), or `nil` for
  /// any other name. Compared as bytes: `x\u{600}.archive` is a mailbox although its last
  /// grapheme cluster is `\u{600}.`.
  static func identifier(ofFileName name: FileName) -> FileName? {
    guard name.hasSuffix(MessageIdentifier.fileExtension) else { return nil }
    let identifier = name.droppingLast(MessageIdentifier.fileExtension.utf8.count)
    // A name from a directory has no `/` or NUL; these are the other names no identifier has.
    guard identifier.byteCount > 0, identifier != ".", identifier != ".." else { return nil }
    return identifier
  }

  /// The path of the mailbox of `identifier` in `directory`.
  static func mailboxPath(directory: FileName, identifier: FileName) -> FileName {
    if let directory = directory.string, let identifier = identifier.string {
      return FileName(directory + "/" + identifier + MessageIdentifier.fileExtension)
    }
    return FileName(
      bytes: directory.bytes + [UInt8(ascii: "/")] + identifier.bytes
        + Array(MessageIdentifier.fileExtension.utf8))
  }

  /// Runs `body` with `name` as a NUL-terminated C string of its exact bytes.
  static func withCString<Result>(_ name: FileName, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows
    -> Result
  {
    try FileSystem.withCString(name, body)
  }

  /// Reads one mailbox: its observation and stamp, or `nil` when the file is gone.
  ///
  /// Symbolic links, FIFOs and devices are reported, never followed or opened for reading; files
  /// over `limit` bytes are stated but not read.
  ///
  /// With `directoryDescriptor` (the directory, opened by whoever reads many of its mailboxes
  /// at once) the file is opened relative to it, without walking the directory's path again;
  /// when that fails for any reason, it is read by its path, as without.
  static func observe(
    directory: FileName, identifier: FileName, limit: Int, directoryDescriptor: Int32? = nil
  ) -> (MailboxObservation, FileStamp?)? {
    let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
    if let directoryDescriptor {
      let descriptor = withCString(fileName(of: identifier)) { openat(directoryDescriptor, $0, flags) }
      if descriptor >= 0 { return observe(opened: descriptor, limit: limit) }
    }
    let path = mailboxPath(directory: directory, identifier: identifier)
    let descriptor = withCString(path) { open($0, flags) }
    guard descriptor >= 0 else {
      let code = errno
      if code == ENOENT || code == ENOTDIR { return nil }
      var status = stat()
      let stamp = withCString(path) { lstat($0, &status) } == 0 ? FileStamp(status) : nil
      if code == ELOOP { return (.unreadable("it is a symbolic link, which is not followed"), stamp) }
      return (.unreadable("cannot read it: \(String(cString: strerror(code)))"), stamp)
    }
    return observe(opened: descriptor, limit: limit)
  }

  /// The file name of `identifier`'s mailbox: `<identifier>.archive`.
  static func fileName(of identifier: FileName) -> FileName {
    if let text = identifier.string { return FileName(text + MessageIdentifier.fileExtension) }
    return FileName(bytes: identifier.bytes + Array(MessageIdentifier.fileExtension.utf8))
  }

  /// Reads the mailbox open at `descriptor`, and closes it.
  private static func observe(opened descriptor: Int32, limit: Int) -> (MailboxObservation, FileStamp?) {
    defer { _ = close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      return (.unreadable("cannot read it: \(String(cString: strerror(errno)))"), nil)
    }
    let stamp = FileStamp(status)
    let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
    guard status.st_mode & S_IFMT == S_IFREG else { return (.unreadable("it is not a regular file"), stamp) }
    let size = Int(status.st_size)
    // The library names each write on the file itself: read before the bytes, from the same
    // descriptor, so the name is the one of the write whose bytes follow (or of a later one).
    let transfer = FileSystem.transferIdentifier(descriptor)
    guard size <= limit else {
      return (.file(bytes: nil, size: size, modifiedNanoseconds: modified, transfer: transfer), stamp)
    }
    // Read to the end: an in-place writer may have grown it since the fstat (one read when not).
    switch FileSystem.readToEnd(descriptor, expectedSize: size, limit: limit, isRegularFile: true) {
    case .bytes(let bytes):
      return (
        .file(bytes: bytes, size: bytes.count, modifiedNanoseconds: modified, transfer: transfer), stamp
      )
    case .tooLarge(let count):
      return (.file(bytes: nil, size: count, modifiedNanoseconds: modified, transfer: transfer), stamp)
    case .failed(let code): return (.unreadable("cannot read it: \(String(cString: strerror(code)))"), stamp)
    }
  }

  /// The stamp of a mailbox without reading it, or `nil` when it is gone.
  static func stamp(directory: FileName, identifier: FileName) -> FileStamp? {
    var status = stat()
    let path = mailboxPath(directory: directory, identifier: identifier)
    return withCString(path) { lstat($0, &status) } == 0 ? FileStamp(status) : nil
  }

  /// The stamp of any file, or `nil` when it is not there.
  static func stamp(of path: String) -> FileStamp? {
    var status = stat()
    return lstat(path, &status) == 0 ? FileStamp(status) : nil
  }
}

/// An `errno` from listing a directory.
struct ScanError: Error {
  var code: Int32
  var message: String { String(cString: strerror(code)) }
}
