import Foundation
import Glibc
import Synchronization
import Testing

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
  let path: String

  init() {
    var template = Array((NSTemporaryDirectory() + "/wormhole-test-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
      guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
      return String(cString: base)
    }
    path = made ?? NSTemporaryDirectory() + "/wormhole-test-\(UUID())"
    if made == nil {
      try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
  }

  func remove() { try? FileManager.default.removeItem(atPath: path) }

  func write(_ name: String, _ text: String) {
    if !FileManager.default.createFile(atPath: path + "/" + name, contents: Data(text.utf8)) {
      Issue.record("could not create \(name) in \(path)")
    }
  }

  func contents(_ name: String) -> String? {
    FileManager.default.contents(atPath: path + "/" + name).map { String(decoding: $0, as: UTF8.self) }
  }

  func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path + "/" + name) }
}

/// Collects values delivered from other threads and lets a test wait for a count of them,
/// with a deadline that only bounds a failure (a passing test never waits for it).
final class Collector<Value: Sendable>: Sendable {
  private let state = Mutex<[Value]>([])
  private let signal = DispatchSemaphore(value: 0)

  func append(_ value: Value) {
    state.withLock { $0.append(value) }
    signal.signal()
  }

  var values: [Value] { state.withLock { $0 } }

  /// Waits until at least `count` values arrived or `seconds` passed; returns the values.
  func wait(for count: Int, seconds: Double = 10) -> [Value] {
    let deadline = DispatchTime.now() + seconds
    while values.count < count {
      if signal.wait(timeout: deadline) == .timedOut { break }
    }
    return values
  }
}
