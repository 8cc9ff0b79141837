import Foundation
import TerminalScreen
import Testing

/// The directory `name` beside the test file that calls this (`#filePath`), so tests find their
/// snapshots from any working directory.
public func snapshotDirectory(_ name: String = "Snapshots", besides filePath: String = #filePath) -> String {
  URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent(name).path
}

/// Compares `screen` with `directory/name.snapshot` (its ``Screen/snapshotText``: quoted lines,
/// then style runs by role), or writes the file when the environment has `SNAPSHOT_RECORD=1`.
/// A mismatch records an issue with a readable diff of the quoted lines.
public func expectSnapshot(
  _ screen: Screen, named name: String, in directory: String,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  expectSnapshot(
    screen.snapshotText, named: name + ".snapshot", in: directory, sourceLocation: sourceLocation)
}

/// Compares `actual` with the file `directory/name`, or writes it when `SNAPSHOT_RECORD=1`.
/// A missing file or a mismatch records an issue; a mismatch shows the first differing lines
/// with context, quoted so whitespace shows.
public func expectSnapshot(
  _ actual: String, named name: String, in directory: String,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  let url = URL(fileURLWithPath: directory).appendingPathComponent(name)
  if ProcessInfo.processInfo.environment["SNAPSHOT_RECORD"] == "1" {
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      try Data(actual.utf8).write(to: url, options: .atomic)
    } catch {
      Issue.record("cannot record \(url.path): \(error)", sourceLocation: sourceLocation)
    }
    return
  }
  guard let data = try? Data(contentsOf: url) else {
    Issue.record(
      "missing snapshot \(url.path); run the tests with SNAPSHOT_RECORD=1 to record it",
      sourceLocation: sourceLocation)
    return
  }
  let expected = String(decoding: data, as: UTF8.self)
  guard !expected.utf8.elementsEqual(actual.utf8) else { return }
  Issue.record(
    "\(name) differs from its snapshot (SNAPSHOT_RECORD=1 re-records it):\n\(snapshotDiff(expected, actual))",
    sourceLocation: sourceLocation)
}

/// A short line diff: the first differing lines with two lines of context, `-` expected and
/// `+` actual, each line quoted so trailing blanks show.
public func snapshotDiff(_ expected: String, _ actual: String) -> String {
  let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
  let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
  let same: (Substring, Substring) -> Bool = { $0.utf8.elementsEqual($1.utf8) }
  var prefix = 0
  while prefix < min(old.count, new.count) && same(old[prefix], new[prefix]) { prefix += 1 }
  var suffix = 0
  while suffix < min(old.count, new.count) - prefix
    && same(old[old.count - 1 - suffix], new[new.count - 1 - suffix])
  {
    suffix += 1
  }
  let quote: (Substring) -> String = { line in line.hasPrefix("\"") ? String(line) : "\"\(line)\"" }
  var lines = ["@@ line \(prefix + 1) @@"]
  for line in old[max(0, prefix - 2)..<prefix] { lines.append("  " + quote(line)) }
  for line in old[prefix..<(old.count - suffix)].prefix(20) { lines.append("- " + quote(line)) }
  for line in new[prefix..<(new.count - suffix)].prefix(20) { lines.append("+ " + quote(line)) }
  for line in old[(old.count - suffix)...].prefix(2) { lines.append("  " + quote(line)) }
  return lines.joined(separator: "\n")
}
