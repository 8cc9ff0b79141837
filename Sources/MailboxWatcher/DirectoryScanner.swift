import Glibc
import MailboxModel
import Wormhole

/// What identifies one state of a file cheaply: if none of these changed, neither did the file.
struct FileStamp: Hashable, Sendable {
  var inode: UInt64
  var size: Int
  var modifiedNanoseconds: Int64
  var changedNanoseconds: Int64

  init(_ status: stat) {
    inode = UInt64(status.st_ino)
    size = Int(status.st_size)
    modifiedNanoseconds = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
    changedNanoseconds = Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec)
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
    guard status.st_mode & S_IFMT == S_IFREG else { return (.unreadable("it is not a regular file"), stamp) }
    let size = Int(status.st_size)
    guard size <= limit else {
      return (.file(bytes: nil, size: size, modifiedNanoseconds: stamp.modifiedNanoseconds), stamp)
    }
    // Read to the end: an in-place writer may have grown it since the fstat.
    var bytes = [UInt8](repeating: 0, count: max(size, 1))
    var count = 0
    while true {
      if count == bytes.count {
        guard count <= limit else {
          return (.file(bytes: nil, size: count, modifiedNanoseconds: stamp.modifiedNanoseconds), stamp)
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
    bytes.removeSubrange(count...)
    return (.file(bytes: bytes, size: count, modifiedNanoseconds: stamp.modifiedNanoseconds), stamp)
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
