import Foundation
import SnapshotSupport
import Testing

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
