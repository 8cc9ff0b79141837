import Foundation
import Testing

@testable import ArchivedValues
@testable import KeyedArchive

/// The test directory, located from this file so tests run from any working directory.
let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let fixturesDirectory = testsDirectory.appendingPathComponent("Fixtures")
let goldenDirectory = testsDirectory.appendingPathComponent("Golden")

/// Every archive fixture (written by Apple's Foundation on macOS), sorted by name.
let fixtureNames: [String] = {
  let names = (try? FileManager.default.contentsOfDirectory(atPath: fixturesDirectory.path)) ?? []
  return names.filter { $0.hasSuffix(".archive") || $0.hasSuffix(".plist") }.sorted()
}()

func fixtureBytes(_ name: String) throws -> [UInt8] {
  [UInt8](try Data(contentsOf: fixturesDirectory.appendingPathComponent(name)))
}

/// Compares `actual` with the golden file `name`, or rewrites it when `SNAPSHOT_RECORD=1`.
/// A mismatch reports the first differing lines with context, quoted so whitespace shows.
func expectGolden(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
  let url = goldenDirectory.appendingPathComponent(name)
  if ProcessInfo.processInfo.environment["SNAPSHOT_RECORD"] == "1" {
    try? FileManager.default.createDirectory(at: goldenDirectory, withIntermediateDirectories: true)
    try? Data(actual.utf8).write(to: url)
    return
  }
  guard let data = try? Data(contentsOf: url) else {
    Issue.record(
      "missing golden file \(name); run with SNAPSHOT_RECORD=1 to create it", sourceLocation: sourceLocation)
    return
  }
  let expected = String(decoding: data, as: UTF8.self)
  guard expected != actual else { return }
  Issue.record(
    "\(name) differs from its golden file (SNAPSHOT_RECORD=1 rewrites it):\n\(lineDiff(expected, actual))",
    sourceLocation: sourceLocation)
}

/// A short line diff: the first differences with two lines of context, `-` expected, `+` actual.
func lineDiff(_ expected: String, _ actual: String) -> String {
  let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
  let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
  var prefix = 0
  while prefix < min(old.count, new.count) && old[prefix] == new[prefix] { prefix += 1 }
  var suffix = 0
  while suffix < min(old.count, new.count) - prefix
    && old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
  {
    suffix += 1
  }
  var lines = ["@@ line \(prefix + 1) @@"]
  for line in old[max(0, prefix - 2)..<prefix] { lines.append("  \"\(line)\"") }
  for line in old[prefix..<(old.count - suffix)].prefix(20) { lines.append("- \"\(line)\"") }
  for line in new[prefix..<(new.count - suffix)].prefix(20) { lines.append("+ \"\(line)\"") }
  for line in old[(old.count - suffix)...].prefix(2) { lines.append("  \"\(line)\"") }
  return lines.joined(separator: "\n")
}

/// Runs `body` on a thread with a 512 KB stack (the least a secondary thread may have) and
/// returns what it returned; a stack overflow crashes the test run.
func onSmallStack<Value: Sendable>(_ body: @escaping @Sendable () -> Value) -> Value? {
  let finished = DispatchSemaphore(value: 0)
  let result = SmallStackResult<Value>()
  let thread = Thread {
    result.set(body())
    finished.signal()
  }
  thread.stackSize = 512 * 1024
  thread.start()
  finished.wait()
  return result.get()
}

/// Carries a result from ``onSmallStack(_:)``'s thread.
private final class SmallStackResult<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value?
  func set(_ newValue: Value) { lock.withLock { value = newValue } }
  func get() -> Value? { lock.withLock { value } }
}
