import Glibc
import WormholeVocabulary

/// One open directory of a device set: the only code of this module that touches the file system.
///
/// Everything below the set's own path is opened relative to its parent's descriptor with
/// `O_NOFOLLOW`, so a symbolic link inside the set is reported and never followed: a link out of
/// the set, or a loop of links, cannot be walked. Names go to the system as their exact bytes, so
/// a name that is not valid UTF-8 is listed and opened like any other.
final class DeviceSetDirectory {
  private let descriptor: Int32

  private init(descriptor: Int32) { self.descriptor = descriptor }

  deinit { close(descriptor) }

  /// What stopped a directory or file from being opened or read.
  enum Failure: Error, Equatable {
    /// Nothing has this name.
    case missing
    /// The name is a symbolic link, which the reader does not follow.
    case symbolicLink
    /// A directory was expected and the name is something else.
    case notDirectory
    /// A file was expected and the name is a directory, FIFO, socket or device.
    case notRegularFile
    /// The file holds more bytes than the reader reads (`size` as the file system says).
    case tooLarge(size: Int64)
    /// The system refused, with this `errno`.
    case system(code: Int32)

    /// The reason in words, for a note.
    var reason: String {
      switch self {
      case .missing: return "it does not exist"
      case .symbolicLink: return "it is a symbolic link, which is not followed inside a device set"
      case .notDirectory: return "it is not a directory"
      case .notRegularFile: return "it is not a regular file"
      case .tooLarge(let size): return "it holds \(size) bytes"
      case .system(let code):
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text) + " (errno \(code))"
      }
    }
  }

  /// What kind of thing one entry is, without following symbolic links.
  enum EntryKind: Equatable {
    case directory
    case regularFile
    case symbolicLink
    case other
  }

  /// One directory entry: its exact name and kind.
  struct Entry: Equatable {
    var name: FileName
    var kind: EntryKind
  }

  /// Opens the directory at `path` (which, being the set the caller named, may be a link).
  static func open(_ path: FileName) -> Result<DeviceSetDirectory, Failure> {
    let descriptor = withCString(path) { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    guard descriptor >= 0 else { return .failure(failure(errno, expectingDirectory: true)) }
    return .success(DeviceSetDirectory(descriptor: descriptor))
  }

  /// Opens the subdirectory `name`, refusing symbolic links.
  func subdirectory(_ name: FileName) -> Result<DeviceSetDirectory, Failure> {
    let opened = DeviceSetDirectory.withCString(name) {
      openat(descriptor, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    }
    guard opened >= 0 else { return .failure(classify(name, errno, expectingDirectory: true)) }
    return .success(DeviceSetDirectory(descriptor: opened))
  }

  /// The entries (without `.` and `..`), at most `limit` of them; `truncated` when there were more.
  func entries(limit: Int) -> Result<(entries: [Entry], truncated: Bool), Failure> {
    // `fdopendir` takes the descriptor over, so it gets its own copy.
    let copy = dup(descriptor)
    guard copy >= 0 else { return .failure(.system(code: errno)) }
    guard let stream = fdopendir(copy) else {
      let code = errno
      close(copy)
      return .failure(.system(code: code))
    }
    defer { closedir(stream) }
    var entries: [Entry] = []
    errno = 0
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
        FileName(bytes: raw.prefix(while: { $0 != 0 }))
      }
      if name == "." || name == ".." { continue }
      if entries.count == limit { return .success((entries, true)) }
      let kind: EntryKind
      switch Int32(entry.pointee.d_type) {
      case Int32(DT_DIR): kind = .directory
      case Int32(DT_REG): kind = .regularFile
      case Int32(DT_LNK): kind = .symbolicLink
      case Int32(DT_UNKNOWN): kind = self.kind(of: name)
      default: kind = .other
      }
      entries.append(Entry(name: name, kind: kind))
    }
    if errno != 0 { return .failure(.system(code: errno)) }
    return .success((entries, false))
  }

  /// The bytes of the regular file `name`, refusing links, special files and files over `limit`.
  func readFile(_ name: FileName, limit: Int) -> Result<[UInt8], Failure> {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
    let opened = DeviceSetDirectory.withCString(name) {
      openat(descriptor, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    }
    guard opened >= 0 else { return .failure(classify(name, errno, expectingDirectory: false)) }
    defer { close(opened) }
    var status = stat()
    guard fstat(opened, &status) == 0 else { return .failure(.system(code: errno)) }
    guard status.st_mode & S_IFMT == S_IFREG else { return .failure(.notRegularFile) }
    guard Int64(status.st_size) <= Int64(limit) else {
      return .failure(.tooLarge(size: Int64(status.st_size)))
    }
    // Read up to one byte past the limit, so that a file that grew since `fstat` is still refused.
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(status.st_size))
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while bytes.count <= limit {
      let wanted = min(chunk.count, limit + 1 - bytes.count)
      let read = chunk.withUnsafeMutableBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return Glibc.read(opened, base, wanted)
      }
      if read < 0 {
        if errno == EINTR { continue }
        return .failure(.system(code: errno))
      }
      if read == 0 { break }
      bytes.append(contentsOf: chunk[0..<read])
    }
    guard bytes.count <= limit else { return .failure(.tooLarge(size: Int64(bytes.count))) }
    return .success(bytes)
  }

  /// The kind of `name` from `fstatat`, for file systems whose entries carry no type.
  private func kind(of name: FileName) -> EntryKind {
    var status = stat()
    let found = DeviceSetDirectory.withCString(name) {
      fstatat(descriptor, $0, &status, AT_SYMLINK_NOFOLLOW)
    }
    guard found == 0 else { return .other }
    switch status.st_mode & S_IFMT {
    case S_IFDIR: return .directory
    case S_IFREG: return .regularFile
    case S_IFLNK: return .symbolicLink
    default: return .other
    }
  }

  /// What an `openat` failure on `name` means: `O_NOFOLLOW` reports a link as `ELOOP`.
  private func classify(_ name: FileName, _ code: Int32, expectingDirectory: Bool) -> Failure {
    if code == ELOOP || code == ENOTDIR || code == ENXIO {
      let kind = self.kind(of: name)
      if kind == .symbolicLink { return .symbolicLink }
      if expectingDirectory && kind != .directory { return .notDirectory }
      if !expectingDirectory && kind != .regularFile { return .notRegularFile }
    }
    return DeviceSetDirectory.failure(code, expectingDirectory: expectingDirectory)
  }

  private static func failure(_ code: Int32, expectingDirectory: Bool) -> Failure {
    switch code {
    case ENOENT: return .missing
    case ENOTDIR where expectingDirectory: return .notDirectory
    default: return .system(code: code)
    }
  }

  /// Runs `body` with `name` as a NUL-terminated C string of its exact bytes.
  private static func withCString<Result>(_ name: FileName, _ body: (UnsafePointer<CChar>) -> Result)
    -> Result
  {
    if let text = name.string { return text.withCString(body) }
    let bytes = name.bytes.map { CChar(bitPattern: $0) } + [0]
    return bytes.withUnsafeBufferPointer { buffer in
      // A buffer of at least one element always has a base address.
      guard let base = buffer.baseAddress else { return "".withCString(body) }
      return body(base)
    }
  }
}
