import Foundation
import Glibc
import Testing

/// A fresh directory under the system temporary directory (`mkdtemp`), removed by `remove()`:
/// the one hermetic place tests write to.
public struct TemporaryDirectory: Sendable {
  /// The directory's absolute path.
  public let path: String

  /// A new empty directory whose name starts with `prefix`.
  public init(prefix: String = "wormhole-test") {
    var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
      guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
      return String(cString: base)
    }
    path = made ?? NSTemporaryDirectory() + "/\(prefix)-\(UUID())"
    if made == nil {
      try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
  }

  /// The path of `name` inside the directory.
  public func path(_ name: String) -> String { path + "/" + name }

  /// Writes `text` to the file `name` inside the directory; a failure is recorded as an issue.
  public func write(_ name: String, _ text: String) {
    if !FileManager.default.createFile(atPath: path(name), contents: Data(text.utf8)) {
      Issue.record("could not create \(name) in \(path)")
    }
  }

  /// The text of the file `name` inside the directory, or nil when it cannot be read.
  public func contents(_ name: String) -> String? {
    FileManager.default.contents(atPath: path(name)).map { String(decoding: $0, as: UTF8.self) }
  }

  /// Whether `name` exists inside the directory.
  public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

  /// Every file and directory below the directory (hidden ones included) by relative path, each
  /// file with its bytes: what a write would change, compared before and after.
  public func allFiles() -> [String: Data] {
    var files: [String: Data] = [:]
    let manager = FileManager.default
    for name in (try? manager.subpathsOfDirectory(atPath: path)) ?? [] {
      var isDirectory: ObjCBool = false
      guard manager.fileExists(atPath: self.path(name), isDirectory: &isDirectory) else { continue }
      files[name] =
        isDirectory.boolValue ? Data("<directory>".utf8) : manager.contents(atPath: self.path(name)) ?? Data()
    }
    return files
  }

  /// Removes the directory and everything in it.
  public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
