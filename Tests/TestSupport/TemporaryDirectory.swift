import Foundation
import Glibc

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

  /// Removes the directory and everything in it.
  public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
