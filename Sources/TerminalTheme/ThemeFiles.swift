#if canImport(Glibc)
  import Glibc
#endif

/// The only file system access of the themes: reading one theme file and listing a directory.
enum ThemeFiles {
  /// Theme files larger than this are refused rather than read.
  static let maximumSize = 1 << 20

  /// The text of the theme file at `path`.
  static func read(_ path: String) throws(ThemeError) -> String {
    guard let text = try readIfPresent(path) else {
      throw .unreadable(file: path, reason: "no such file")
    }
    return text
  }

  /// The text of the theme file at `path`, `nil` when there is no such file (or a component of
  /// its directory is not a directory).
  static func readIfPresent(_ path: String) throws(ThemeError) -> String? {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    if descriptor < 0 {
      let code = errno
      if code == ENOENT || code == ENOTDIR { return nil }
      throw .unreadable(file: path, reason: reason(code))
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw .unreadable(file: path, reason: reason(errno)) }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw .unreadable(file: path, reason: "not a regular file")
    }
    guard status.st_size <= maximumSize else {
      throw .unreadable(file: path, reason: "larger than \(maximumSize) bytes")
    }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .unreadable(file: path, reason: reason(errno))
      }
      if count == 0 { break }
      bytes += buffer[0..<count]
      if bytes.count > maximumSize {
        throw .unreadable(file: path, reason: "larger than \(maximumSize) bytes")
      }
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw .unreadable(file: path, reason: "not UTF-8 text")
    }
    return text
  }

  /// The names (without `.theme`) of the theme files in `directory`, hidden ones and names that
  /// are not UTF-8 left out; none when the directory cannot be read.
  static func themeNames(inDirectory directory: String) -> [String] {
    guard let stream = opendir(directory) else { return [] }
    defer { closedir(stream) }
    var names: [String] = []
    let suffix = Array(".theme".utf8)
    while let entry = readdir(stream) {
      let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
      guard bytes.count > suffix.count, bytes.first != UInt8(ascii: "."),
        bytes.suffix(suffix.count).elementsEqual(suffix)
      else { continue }
      if let name = String(validating: bytes.dropLast(suffix.count), as: UTF8.self) { names.append(name) }
    }
    return names
  }

  static func reason(_ code: Int32) -> String {
    strerror(code).map { String(cString: $0) } ?? "error \(code)"
  }
}
