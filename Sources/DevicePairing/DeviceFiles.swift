import Glibc
import Wormhole

/// A failed system call on a path, for ``PairStoreError`` and ``SessionError/storage(_:)``.
struct SystemCallFailure: Error, Sendable, Equatable {
  var operation: String
  var path: String
  var code: Int32

  /// "could not <operation> <path>: <strerror>", the path escaped for a terminal.
  var message: String {
    "could not \(operation) \(PairDisplay.path(path)): \(String(cString: strerror(code)))"
  }

  /// ``message``, followed, when the home cannot be written (no permission, a read-only file
  /// system), by what to do about it, as the message verbs say it of a read-only directory.
  var messageAdvisingAWritableHome: String {
    guard code == EROFS || code == EACCES || code == EPERM else { return message }
    return message
      + ": running or changing a device or a peer needs a writable home (choose one with --home or "
      + "WORMHOLE_HOME); reading (pair list, peer list, dump) works"
  }
}

/// The POSIX calls of the pair store and the device storage: directories, atomic files, trees.
enum DeviceFiles {
  /// Makes `path` (mode 0700) unless it is already a directory; parents must exist.
  static func makeDirectory(_ path: String) throws(SystemCallFailure) {
    if mkdir(path, 0o700) == 0 { return }
    let code = errno
    var status = stat()
    if code == EEXIST && lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR { return }
    throw SystemCallFailure(
      operation: "create the directory", path: path, code: code == EEXIST ? ENOTDIR : code)
  }

  /// Makes `path` and its missing parents, each mode 0700.
  static func makeDirectories(_ path: String) throws(SystemCallFailure) {
    var status = stat()
    if stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR { return }
    if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
      try makeDirectories(String(path[..<slash]))
    }
    try makeDirectory(path)
  }

  /// Writes `bytes` to a temporary file beside `path` and renames it over `path`: readers, and
  /// a process killed at any point, see the old contents or the new, never a mix; a process
  /// killed while it writes leaves no temporary file behind (it has no name until complete), as
  /// for the mailboxes (`FileSystem.replaceAtomically`).
  static func writeAtomically(_ bytes: [UInt8], to path: String) throws(SystemCallFailure) {
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[..<$0]) } ?? "."
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    let failure = bytes.withUnsafeBytes { buffer -> FileSystem.FileWriteFailure? in
      do throws(FileSystem.FileWriteFailure) {
        try FileSystem.replaceAtomically(
          buffer, directory: directory, name: name, temporaryPrefix: "device", durable: false)
        return nil
      } catch {
        return error
      }
    }
    if let failure {
      throw SystemCallFailure(operation: failure.operation, path: failure.path, code: failure.code)
    }
  }

  /// The contents of the regular file at `path`, `nil` when there is none. Links are not
  /// followed; files over `limit` bytes are refused unread.
  static func read(_ path: String, limit: Int) throws(SystemCallFailure) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      if errno == ENOENT { return nil }
      throw SystemCallFailure(operation: "read", path: path, code: errno)
    }
    defer { _ = close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw SystemCallFailure(operation: "read", path: path, code: errno)
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw SystemCallFailure(operation: "read", path: path, code: EINVAL)
    }
    guard Int(status.st_size) <= limit else {
      throw SystemCallFailure(operation: "read", path: path, code: EFBIG)
    }
    var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
    var count = 0
    while count < bytes.count {
      let got = bytes.withUnsafeMutableBytes {
        Glibc.read(descriptor, $0.baseAddress.map { $0 + count }, $0.count - count)
      }
      if got < 0 {
        if errno == EINTR { continue }
        throw SystemCallFailure(operation: "read", path: path, code: errno)
      }
      if got == 0 { break }
      count += got
    }
    bytes.removeSubrange(count...)
    return bytes
  }

  /// The names in `directory` (not `.` and `..`); an absent directory has none.
  static func entries(of directory: String) throws(SystemCallFailure) -> [String] {
    guard let stream = opendir(directory) else {
      if errno == ENOENT { return [] }
      throw SystemCallFailure(operation: "list", path: directory, code: errno)
    }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// Removes `path` and everything below it without following symbolic links.
  static func removeTree(_ path: String) throws(SystemCallFailure) {
    var status = stat()
    guard lstat(path, &status) == 0 else {
      if errno == ENOENT { return }
      throw SystemCallFailure(operation: "remove", path: path, code: errno)
    }
    if status.st_mode & S_IFMT == S_IFDIR {
      for name in try entries(of: path) { try removeTree(path + "/" + name) }
      if rmdir(path) != 0 && errno != ENOENT {
        throw SystemCallFailure(operation: "remove", path: path, code: errno)
      }
    } else if unlink(path) != 0 && errno != ENOENT {
      throw SystemCallFailure(operation: "remove", path: path, code: errno)
    }
  }

  /// Whether `path` exists (without following a link).
  static func exists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
  }

  /// Nanoseconds since 1970 by the system clock.
  static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}
