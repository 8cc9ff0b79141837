import CExtendedAttributes
import Glibc
import WormholeVocabulary

// The one whole-file read loop and the one directory reader of the library, the watcher and the
// verbs. (The themes keep their own, in TerminalTheme, which depends on none of these.)
extension FileSystem {
  /// What reading a file to its end found.
  package enum ReadToEnd: Sendable, Equatable {
    /// The file's bytes, exactly (no spare capacity is kept).
    case bytes([UInt8])
    /// More than the limit: at least this many bytes, of which none are kept.
    case tooLarge(atLeast: Int)
    /// A `read` failed with this `errno`.
    case failed(code: Int32)
  }

  /// The transfer identifier this library set on an open mailbox (``Wormhole/transferAttributeName``),
  /// or `nil` when the file has none (written by another program, or a file system without user
  /// extended attributes). At most 256 bytes are read: the library writes 16, a session up to 91 (`<pair>/<role>#<id>`).
  package static func transferIdentifier(_ descriptor: Int32) -> String? {
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = buffer.withUnsafeMutableBytes { bytes in
      fgetxattr(descriptor, Wormhole.transferAttributeName, bytes.baseAddress, bytes.count)
    }
    guard count > 0 else { return nil }
    return String(validating: buffer[..<count], as: UTF8.self)
  }

  /// Reads the file open at `descriptor` from where it is to its end, whatever its size turns
  /// out to be (an in-place writer may be growing it), and at most `limit` bytes.
  ///
  /// The buffer starts at `expectedSize` (from `fstat`) plus one spare byte, so that a file of
  /// the size stated is read whole by the first `read` and the second sees its end. With
  /// `isRegularFile` (the caller's `fstat` said so) a first `read` that returns the size stated
  /// and leaves the spare byte empty is the end: the file held no more then, and the second
  /// `read` is not made (the bridge's watcher reads a mailbox per change). Not for a pipe or a
  /// `/proc` file, whose reads may stop short anywhere.
  package static func readToEnd(
    _ descriptor: Int32, expectedSize: Int, limit: Int, isRegularFile: Bool = false
  ) -> ReadToEnd {
    guard expectedSize <= limit else { return .tooLarge(atLeast: expectedSize) }
    var bytes = [UInt8](repeating: 0, count: max(expectedSize, 0) + 1)
    var count = 0
    while true {
      if count == bytes.count {
        guard count <= limit else { return .tooLarge(atLeast: count) }
        bytes.append(contentsOf: repeatElement(0, count: max(bytes.count, 4096)))
      }
      let got = bytes.withUnsafeMutableBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return read(descriptor, base + count, raw.count - count)
      }
      if got < 0 {
        if errno == EINTR { continue }
        return .failed(code: errno)
      }
      if got == 0 { break }
      count += got
      // A regular file that read short of the spare byte had no more then (a file that grew
      // since fstat fills it, and is read on to its end).
      if isRegularFile && count == expectedSize && count < bytes.count { break }
    }
    guard count <= limit else { return .tooLarge(atLeast: count) }
    // A copy of exactly the bytes read: the buffer's spare capacity would be held as long as the
    // bytes are (100,000 mailboxes, each with a grown buffer, would be hundreds of MB).
    return .bytes(count == bytes.count ? bytes : Array(bytes[..<count]))
  }

  /// One entry of a directory, as the file system holds it.
  package struct DirectoryEntry {
    /// The name's exact bytes (valid UTF-8 or not); never `.` or `..`.
    package var name: FileName
    /// Whether it is a directory (not following a link; asked with `fstatat` when the file
    /// system does not say).
    package var isDirectory: Bool
  }

  /// Calls `body` with each entry of `directory` (not `.` and `..`); returns the `errno` that
  /// stopped it from listing the directory, or `nil`.
  package static func forEachEntry(of directory: FileName, _ body: (DirectoryEntry) -> Void) -> Int32? {
    guard let stream = withCString(directory, { opendir($0) }) else { return errno }
    defer { closedir(stream) }
    let descriptor = dirfd(stream)
    while let entry = readdir(stream) {
      let (name, isDirectory) = withUnsafeBytes(of: &entry.pointee.d_name) { raw -> (FileName, Bool) in
        let bytes = raw.prefix(while: { $0 != 0 })
        var type = entry.pointee.d_type
        if type == UInt8(DT_UNKNOWN), let base = raw.baseAddress {
          var status = stat()
          if fstatat(descriptor, base.assumingMemoryBound(to: CChar.self), &status, AT_SYMLINK_NOFOLLOW) == 0
          {
            type = status.st_mode & S_IFMT == S_IFDIR ? UInt8(DT_DIR) : UInt8(DT_REG)
          }
        }
        return (FileName(bytes: bytes), type == UInt8(DT_DIR))
      }
      if name == "." || name == ".." { continue }
      body(DirectoryEntry(name: name, isDirectory: isDirectory))
    }
    return nil
  }

  /// Runs `body` with `name` as a NUL-terminated C string of its exact bytes.
  package static func withCString<Result>(_ name: FileName, _ body: (UnsafePointer<CChar>) throws -> Result)
    rethrows -> Result
  {
    if let text = name.string { return try text.withCString(body) }
    let bytes = name.bytes.map { CChar(bitPattern: $0) } + [0]
    return try bytes.withUnsafeBufferPointer { buffer in
      // A buffer of at least one element always has a base address.
      guard let base = buffer.baseAddress else { return try "".withCString(body) }
      return try body(base)
    }
  }
}
