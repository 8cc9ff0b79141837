import Foundation
import SnapshotSupport
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

/// Compares `actual` with the golden file `name`, or rewrites it when `SNAPSHOT_RECORD=1`,
/// through the one golden-file helper (``SnapshotSupport/expectSnapshot(_:named:in:sourceLocation:)``).
func expectGolden(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
  expectSnapshot(actual, named: name, in: goldenDirectory.path, sourceLocation: sourceLocation)
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
