import Glibc
import MailboxModel
import Wormhole

/// What identifies one state of a file cheaply: a fingerprint of its inode, size, modification
/// and status-change times. If it did not change, neither did the file. Eight bytes, because the
/// watcher keeps one per mailbox (100,000 mailboxes must fit well under 100 MB).
struct FileStamp: Hashable, Sendable {
  var fingerprint: UInt64

  init(_ status: stat) {
    // FNV-1a over the four fields.
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for field in [
      UInt64(status.st_ino), UInt64(bitPattern: Int64(status.st_size)),
      UInt64(bitPattern: Int64(status.st_mtim.tv_sec)) &* 1_000_000_000
        &+ UInt64(bitPattern: Int64(status.st_mtim.tv_nsec)),
      UInt64(bitPattern: Int64(status.st_ctim.tv_sec)) &* 1_000_000_000
        &+ UInt64(bitPattern: Int64(status.st_ctim.tv_nsec)),
    ] {
      var value = field
      for _ in 0..<8 {
        hash = (hash ^ (value & 0xff)) &* 0x0000_0100_0000_01b3
        value >>= 8
      }
    }
    fingerprint = hash
  }
}

/// One directory's entries, as far as the model cares.
struct DirectoryListing {
  /// Mailbox file names with their status (`nil` when it could not be taken).
  var mailboxes: [(name: String, identifier: String)] = []
  var subdirectories: [String] = []
  var hasJournal = false
}

/// POSIX reads of wormhole directories and mailboxes: `opendir`/`readdir`, `openat`, `fstat`,
/// `read`. (Foundation's file attributes cost three times a whole scan.)
enum DirectoryScanner {
  /// The entries of `path`, or the `errno` that stopped listing it.
  static func list(_ path: String) -> Result<DirectoryListing, ScanError> {
    guard let stream = opendir(path) else { return .failure(ScanError(code: errno)) }
    defer { closedir(stream) }
    let descriptor = dirfd(stream)
    var listing = DirectoryListing()
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      if name == "." || name == ".." { continue }
      var type = entry.pointee.d_type
      if type == UInt8(DT_UNKNOWN) {
        var status = stat()
        if fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0 {
          type = status.st_mode & S_IFMT == S_IFDIR ? UInt8(DT_DIR) : UInt8(DT_REG)
        }
      }
      if type == UInt8(DT_DIR) {
        listing.subdirectories.append(name)
      } else if name == TrafficJournal.fileName || name == TrafficJournal.rotatedFileName {
        listing.hasJournal = true
      } else if let identifier = MessageIdentifier.identifier(fromFileName: name) {
        listing.mailboxes.append((name, identifier))
      }
    }
    return .success(listing)
  }

  /// Reads one mailbox: its observation and stamp, or `nil` when the file is gone.
  ///
  /// Symbolic links, FIFOs and devices are reported, never followed or opened for reading; files
  /// over `limit` bytes are stated but not read.
  static func observe(directory: String, name: String, limit: Int) -> (MailboxObservation, FileStamp?)? {
    let path = directory + "/" + name
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      let code = errno
      if code == ENOENT || code == ENOTDIR { return nil }
      var status = stat()
      let stamp = lstat(path, &status) == 0 ? FileStamp(status) : nil
      if code == ELOOP { return (.unreadable("it is a symbolic link, which is not followed"), stamp) }
      return (.unreadable("cannot read it: \(String(cString: strerror(code)))"), stamp)
    }
    defer { _ = close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      return (.unreadable("cannot read it: \(String(cString: strerror(errno)))"), nil)
    }
    let stamp = FileStamp(status)
    let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
    guard status.st_mode & S_IFMT == S_IFREG else { return (.unreadable("it is not a regular file"), stamp) }
    let size = Int(status.st_size)
    guard size <= limit else {
      return (.file(bytes: nil, size: size, modifiedNanoseconds: modified), stamp)
    }
    // Read to the end: an in-place writer may have grown it since the fstat. One spare byte, so
    // that a file of the size stated is read whole by the first read and the second sees its end.
    var bytes = [UInt8](repeating: 0, count: size + 1)
    var count = 0
    while true {
      if count == bytes.count {
        guard count <= limit else {
          return (.file(bytes: nil, size: count, modifiedNanoseconds: modified), stamp)
        }
        bytes.append(contentsOf: repeatElement(0, count: max(bytes.count, 4096)))
      }
      let got = bytes.withUnsafeMutableBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return read(descriptor, base + count, raw.count - count)
      }
      if got < 0 {
        if errno == EINTR { continue }
        return (.unreadable("cannot read it: \(String(cString: strerror(errno)))"), stamp)
      }
      if got == 0 { break }
      count += got
    }
    // A copy of exactly the bytes read: the buffer's spare capacity would be held as long as
    // the version is (100,000 mailboxes, each with a grown buffer, would be hundreds of MB).
    let exact = count == bytes.count ? bytes : Array(bytes[..<count])
    return (.file(bytes: exact, size: count, modifiedNanoseconds: modified), stamp)
  }

  /// The stamp of `directory/name` without reading it, or `nil` when it is gone.
  static func stamp(directory: String, name: String) -> FileStamp? {
    var status = stat()
    return lstat(directory + "/" + name, &status) == 0 ? FileStamp(status) : nil
  }
}

/// An `errno` from listing a directory.
struct ScanError: Error {
  var code: Int32
  var message: String { String(cString: strerror(code)) }
}
