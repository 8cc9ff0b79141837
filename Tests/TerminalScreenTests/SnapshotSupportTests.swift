import Foundation
import SnapshotSupport
import TerminalScreen
import Testing

@Suite struct SnapshotSupportTests {
  @Test func aScreenMatchesItsRecordedSnapshot() {
    var screen = Screen(width: 12, height: 3)
    screen.fill(Rect(x: 0, y: 0, width: 12, height: 1), role: "title")
    screen.write(" wormhole 日本", row: 0, column: 0, role: "title")
    screen.write("inbox", row: 1, column: 1, role: "list.selected")
    screen.write("👍🏽 e\u{301}", row: 2, column: 0, role: "list")
    expectSnapshot(screen, named: "small-screen", in: snapshotDirectory())
  }

  @Test func theDiffQuotesTheDifferingLines() {
    let diff = snapshotDiff("\"a\"\n\"b \"\n\"c\"\n", "\"a\"\n\"b\"\n\"c\"\n")
    #expect(diff.contains("- \"b \""))
    #expect(diff.contains("+ \"b\""))
    #expect(diff.contains("  \"a\""))
  }
}

@Suite struct SnapshotMismatchTests {
  @Test func aDifferentScreenIsReportedAndAMissingSnapshotToo() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("snapshot-\(UInt64.random(in: 0...UInt64.max))").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var screen = Screen(width: 4, height: 1)
    screen.write("ab", row: 0, column: 0, role: "title")
    try Data("\"ab  \"\n\n0:0-1 list\n".utf8).write(to: URL(fileURLWithPath: directory + "/roles.snapshot"))
    withKnownIssue {
      expectSnapshot(screen, named: "roles", in: directory)
    } matching: { issue in
      issue.description.contains("- \"0:0-1 list\"") && issue.description.contains("+ \"0:0-1 title\"")
    }
    withKnownIssue {
      expectSnapshot(screen, named: "absent", in: directory)
    } matching: { issue in
      issue.description.contains("SNAPSHOT_RECORD=1")
    }
  }
}
