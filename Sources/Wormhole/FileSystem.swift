import CExtendedAttributes
import Glibc
import Synchronization
import WormholeVocabulary

/// The POSIX calls the library makes, each failure turned into a ``WormholeError``.
package enum FileSystem {
  /// Makes `path` and any missing parents, each new directory with mode 0700.
  static func makeDirectories(_ path: String) throws(WormholeError) {
    var status = stat()
    if stat(path, &status) == 0 {
      guard status.st_mode & S_IFMT == S_IFDIR else {
        throw .containerUnavailable(path: path, reason: "it exists and is not a directory")
      }
      return
    }
    guard errno == ENOENT else { throw unavailable(path, errno) }
    let parent = parentPath(of: path)
    if parent != path { try makeDirectories(parent) }
    if mkdir(path, 0o700) != 0 && errno != EEXIST { throw unavailable(path, errno) }
  }

  /// Throws unless `path` is an existing directory we can list and search. Write access is not
  /// needed to open one (a mounted read-only container reads as it is); writes that find none
  /// report it (``readOnlyError(_:)``).
  static func checkDirectory(_ path: String) throws(WormholeError) {
    var status = stat()
    guard stat(path, &status) == 0 else {
      if errno == ENOENT {
        throw .containerUnavailable(
          path: path, reason: "it does not exist (create it, or set Options.createsDirectory)")
      }
      throw unavailable(path, errno)
    }
    guard status.st_mode & S_IFMT == S_IFDIR else {
      throw .containerUnavailable(path: path, reason: "it is not a directory")
    }
    guard access(path, R_OK | X_OK) == 0 else {
      let code = errno
      throw .containerUnavailable(
        path: path, reason: "\(String(cString: strerror(code))) (it cannot be read)")
    }
  }

  /// The error for a write into `directory` that failed with `code`: a plain "read-only" when
  /// the directory cannot be written at all, else `nil`.
  static func readOnlyError(_ directory: String, code: Int32) -> WormholeError? {
    guard code == EACCES || code == EROFS || code == EPERM else { return nil }
    guard access(directory, W_OK) != 0 else { return nil }
    let reason = errno == EROFS ? "it is on a read-only file system" : "this user cannot write in it"
    return .containerUnavailable(
      path: directory,
      reason:
        "\(reason): reading works, passing and clearing need a writable directory (choose a writable home with --home or WORMHOLE_HOME)"
    )
  }

  private static func unavailable(_ path: String, _ code: Int32) -> WormholeError {
    let reason = String(cString: strerror(code))
    if code == EACCES || code == EROFS || code == EPERM {
      return .containerUnavailable(
        path: path, reason: "\(reason) (choose a writable home with --home or WORMHOLE_HOME)")
    }
    return .containerUnavailable(path: path, reason: reason)
  }

  static func parentPath(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    if slash == path.startIndex { return "/" }
    return String(path[..<slash])
  }

  private static let temporaryCounter = Atomic<UInt64>(0)

  /// A hidden name for a temporary file in the same directory, unique in this process and
  /// among processes (pid), and not derived from the identifier so that it always fits.
  static func temporaryName(prefix: String = "wormhole") -> String {
    let count = temporaryCounter.add(1, ordering: .relaxed).newValue
    return ".\(prefix)-\(getpid())-\(count).tmp"
  }

  /// Writes `bytes` to a new temporary file in `directory` and renames it over `name`, so that
  /// readers see the old message or the new one, never a mix (see
  /// ``replaceAtomically(_:directory:name:temporaryPrefix:durable:transfer:)``); a directory this
  /// process may not write in is said as such (``readOnlyError(_:code:)``).
  static func writeAtomically(
    _ bytes: UnsafeRawBufferPointer, directory: String, name: String, durable: Bool, transfer: String? = nil
  ) throws(WormholeError) {
    do throws(FileWriteFailure) {
      try replaceAtomically(bytes, directory: directory, name: name, durable: durable, transfer: transfer)
    } catch {
      if error.operation == "create", let readOnly = readOnlyError(directory, code: error.code) {
        throw readOnly
      }
      throw .fileSystem(operation: error.operation, path: error.path, code: error.code)
    }
  }

  /// A system call of ``replaceAtomically(_:directory:name:temporaryPrefix:durable:transfer:)``
  /// that failed: what it did, on which path, and its `errno`.
  package struct FileWriteFailure: Error, Sendable, Equatable {
    package var operation: String
    package var path: String
    package var code: Int32
  }

  /// Writes `bytes` to a new temporary file in `directory` and renames it over `name`, so that
  /// readers see the old contents or the new, never a mix. The old file stays if anything
  /// fails. With `durable`, the file is flushed to disk before the rename and the directory
  /// after. A `transfer` identifier is set on the file as ``Wormhole/transferAttributeName``
  /// before the rename, so the mailbox never appears without it; a file system without user
  /// extended attributes just does not keep it.
  ///
  /// The contents are written to a file without a name (`O_TMPFILE`), which is named
  /// (`.PREFIX-PID-N.tmp`) only once complete, just before the rename: a process killed while it
  /// writes (SIGTERM, SIGKILL, a power cut) leaves nothing behind in the directory, however
  /// large the file. Where the file system has no unnamed files (or `/proc` is not mounted),
  /// the file is named from the start. The mailboxes and the devices' files both go through it.
  package static func replaceAtomically(
    _ bytes: UnsafeRawBufferPointer, directory: String, name: String, temporaryPrefix: String = "wormhole",
    durable: Bool, transfer: String? = nil
  ) throws(FileWriteFailure) {
    let temporary = directory + "/" + temporaryName(prefix: temporaryPrefix)
    let target = directory + "/" + name
    let unnamed = open(directory, unnamedFileFlags, 0o600)
    if unnamed >= 0 {
      let linked: Bool
      do throws(FileWriteFailure) {
        try fill(unnamed, bytes, path: target, durable: durable, transfer: transfer)
        linked = link(unnamed, as: temporary)
      } catch {
        _ = close(unnamed)
        throw error
      }
      if linked {
        if close(unnamed) != 0 {
          let code = errno
          _ = unlink(temporary)
          throw FileWriteFailure(operation: "write", path: target, code: code)
        }
        try replace(target, with: temporary, directory: directory, durable: durable)
        return
      }
      // No way to name it (no /proc): write it again under a name.
      _ = close(unnamed)
    }
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw FileWriteFailure(operation: "create", path: temporary, code: errno) }
    do throws(FileWriteFailure) {
      try fill(descriptor, bytes, path: temporary, durable: durable, transfer: transfer)
      if close(descriptor) != 0 { throw FileWriteFailure(operation: "write", path: temporary, code: errno) }
    } catch {
      _ = close(descriptor)
      _ = unlink(temporary)
      throw error
    }
    try replace(target, with: temporary, directory: directory, durable: durable)
  }

  /// `O_TMPFILE`: a regular file without a name in the directory opened. Spelled out because
  /// the C macro (`__O_TMPFILE | O_DIRECTORY`) does not import; 020000000 is its value on every
  /// architecture Swift runs on.
  private static let unnamedFileFlags: Int32 = 0o20_000_000 | O_DIRECTORY | O_WRONLY | O_CLOEXEC

  /// Writes `bytes` to `descriptor`, sets the transfer attribute and, when `durable`, flushes it.
  /// `path` names the file in errors.
  private static func fill(
    _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String, durable: Bool, transfer: String?
  ) throws(FileWriteFailure) {
    let code = writeAll(descriptor, bytes)
    if code != 0 { throw FileWriteFailure(operation: "write", path: path, code: code) }
    if let transfer {
      // Best effort by design: ENOTSUP (no user attributes here) or EPERM leave the file as
      // MMWormhole would write it, and pairing falls back to identifier, size and time.
      _ = transfer.utf8CString.withUnsafeBufferPointer { value in
        fsetxattr(descriptor, Wormhole.transferAttributeName, value.baseAddress, value.count - 1, 0)
      }
    }
    if durable && fsync(descriptor) != 0 {
      throw FileWriteFailure(operation: "flush", path: path, code: errno)
    }
  }

  /// Gives the unnamed file open as `descriptor` the name `path` (through `/proc/self/fd`, which
  /// needs no privilege, unlike `AT_EMPTY_PATH`). False when it cannot.
  private static func link(_ descriptor: Int32, as path: String) -> Bool {
    linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0
  }

  /// Renames `temporary` over `target` (removing `temporary` if that fails), then, when
  /// `durable`, flushes the directory.
  private static func replace(_ target: String, with temporary: String, directory: String, durable: Bool)
    throws(FileWriteFailure)
  {
    guard rename(temporary, target) == 0 else {
      let code = errno
      _ = unlink(temporary)
      throw FileWriteFailure(operation: "replace", path: target, code: code)
    }
    if durable { syncDirectory(directory) }
  }

  static func syncDirectory(_ directory: String) {
    let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = fsync(descriptor)
    _ = close(descriptor)
  }

  static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String)
    throws(WormholeError)
  {
    let code = writeAll(descriptor, bytes)
    if code != 0 { throw .fileSystem(operation: "write", path: path, code: code) }
  }

  /// Writes every byte, retrying short writes and interruptions; returns 0 or the `errno`
  /// (`EIO` when a write makes no progress).
  package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    var offset = 0
    while offset < bytes.count {
      let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return errno
      }
      if written == 0 { return EIO }
      offset += written
    }
    return 0
  }

  /// Writes every byte of `bytes`, as the buffer-pointer form does.
  package static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32 {
    bytes.withUnsafeBytes { writeAll(descriptor, $0) }
  }

  /// The contents of the mailbox at `path`, or `nil` when there is none. Symbolic links, FIFOs,
  /// devices and directories are refused rather than followed or opened for reading (a FIFO
  /// would block), and files over `limit` bytes are refused without reading them.
  static func readMailbox(_ path: String, limit: Int) throws(WormholeError) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      let code = errno
      if code == ENOENT { return nil }
      if code == ELOOP {
        throw .notAMailbox(path: path, reason: "it is a symbolic link, which is not followed")
      }
      throw .fileSystem(operation: "read", path: path, code: code)
    }
    defer { _ = close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw .fileSystem(operation: "read", path: path, code: errno)
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw .notAMailbox(path: path, reason: "it is not a regular file")
    }
    switch readToEnd(descriptor, expectedSize: Int(status.st_size), limit: limit) {
    case .bytes(let bytes): return bytes
    case .tooLarge(let count): throw .messageTooLarge(path: path, bytes: count, limit: limit)
    case .failed(let code): throw .fileSystem(operation: "read", path: path, code: code)
    }
  }

  /// Removes the mailbox `name` in `directory` if there is one: a regular file, or a symbolic
  /// link (removed itself, never followed). Anything else of that name (a directory, FIFO,
  /// socket or device) is left alone and reported as ``WormholeError/notAMailbox(path:reason:)``.
  /// The name is used as bytes, so names that are not valid UTF-8 are removed too.
  static func removeMailbox(directory: String, name: FileName) throws(WormholeError) {
    let path = directory + "/" + name.lossyText
    let target = Array(directory.utf8) + [UInt8(ascii: "/")] + name.bytes + [0]
    let result = target.withUnsafeBufferPointer { buffer -> Int32 in
      buffer.withMemoryRebound(to: CChar.self) { chars -> Int32 in
        guard let pathname = chars.baseAddress else { return EINVAL }
        var status = stat()
        guard lstat(pathname, &status) == 0 else { return errno == ENOENT ? 0 : errno }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG || type == S_IFLNK else { return -Int32(type) }
        if unlink(pathname) == 0 || errno == ENOENT { return 0 }
        return errno
      }
    }
    if result == 0 { return }
    if result < 0 {
      throw .notAMailbox(
        path: path,
        reason: "it is \(TrafficJournal.fileTypeName(mode_t(-result))), which is left alone")
    }
    throw .fileSystem(operation: "remove", path: path, code: result)
  }

  /// The names of the entries in `directory` (not `.` and `..`), as the file system holds them:
  /// names that are not valid UTF-8 included.
  static func entries(of directory: String) throws(WormholeError) -> [FileName] {
    var names: [FileName] = []
    if let code = forEachEntry(of: FileName(directory), { names.append($0.name) }) {
      throw .fileSystem(operation: "list", path: directory, code: code)
    }
    return names
  }

  /// The size and modification time of `path` without following a link, or `nil` if absent.
  static func status(_ path: String) -> stat? {
    var status = stat()
    return lstat(path, &status) == 0 ? status : nil
  }
}

/// Linux open-file-description byte-range locks: held per open file, so they exclude other
/// processes and other descriptors of this one, and vanish when the descriptor closes.
/// (`F_OFD_SETLKW` is 38 in Linux's ABI; Glibc hides the name behind `_GNU_SOURCE`.)
struct RangeLock {
  static let setLockWaiting: Int32 = 38

  enum Kind { case shared, exclusive }

  /// Waits for a lock of `kind` on `length` bytes at `offset` (0 means to the end of every file).
  static func lock(_ descriptor: Int32, kind: Kind, offset: Int64, length: Int64) -> Int32 {
    var request = flock()
    request.l_type = Int16(kind == .shared ? F_RDLCK : F_WRLCK)
    request.l_whence = Int16(SEEK_SET)
    request.l_start = off_t(offset)
    request.l_len = off_t(length)
    request.l_pid = 0
    while fcntl(descriptor, setLockWaiting, &request) != 0 {
      if errno != EINTR { return errno }
    }
    return 0
  }

  static func unlock(_ descriptor: Int32, offset: Int64, length: Int64) {
    var request = flock()
    request.l_type = Int16(F_UNLCK)
    request.l_whence = Int16(SEEK_SET)
    request.l_start = off_t(offset)
    request.l_len = off_t(length)
    request.l_pid = 0
    _ = fcntl(descriptor, setLockWaiting, &request)
  }
}
