import Foundation
import Glibc
import TestSupport
import Testing

/// `inspect` on what a directory may hold besides archives, and its exit-code policy.
@Suite(.hangLimit) struct InspectCommandTests {
  private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("KeyedArchiveTests/Fixtures").path

  @Test func aFIFOIsReportedWithoutBlockingOrAStaleError() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let fifo = home.path + "/pipe.archive"
    #expect(mkfifo(fifo, 0o600) == 0)
    let result = try run(["inspect", fifo])
    #expect(result.status == 3)
    #expect(
      result.errors.contains("not a regular file") || result.errors.contains("FIFO"), "\(result.errors)")
    #expect(!result.errors.contains("Inappropriate ioctl"))
  }

  /// `-` reads standard input, so a pipe can be inspected (`read --raw ID | inspect -`); a FIFO
  /// named as a FILE is still refused rather than waited on.
  @Test func aDashIsStandardInput() throws {
    let piped = try runShell(
      "cat \"$1\" | \"$0\" inspect --json -", [Self.fixtures + "/NSSet-Numbers.archive"])
    #expect(piped.status == 0, "\(piped.errors)")
    let file = try run(["inspect", "--json", Self.fixtures + "/NSSet-Numbers.archive"])
    #expect(piped.output == file.output && !file.output.isEmpty)
    let empty = try run(["inspect", "-"], input: "")
    #expect(empty.status == 3)
    #expect(empty.errors.contains("standard input"), "\(empty.errors)")
  }

  @Test func aDirectoryIsSaidToBeOne() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let result = try run(["inspect", home.path])
    #expect(result.status == 3)
    #expect(result.errors.contains("directory"), "\(result.errors)")
    #expect(!result.errors.contains("No such file"))
  }

  @Test func strictExitsOneOnAPlainPropertyListAndZeroOnAnArchive() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let plain = home.path + "/plain.plist"
    let list = try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .binary, options: 0)
    #expect(FileManager.default.createFile(atPath: plain, contents: list))
    let archive = Self.fixtures + "/NSSet-Numbers.archive"

    let lenient = try run(["inspect", plain])
    #expect(lenient.status == 0)
    #expect(lenient.output.contains("not a keyed archive"))
    #expect(lenient.errors.isEmpty, "\(lenient.errors)")
    #expect(try run(["inspect", "--strict", plain]).status == 1)
    #expect(try run(["inspect", "--strict", archive]).status == 0)
    // 3 (unreadable) wins over 1 (not well-formed).
    #expect(try run(["inspect", "--strict", plain, home.path + "/missing"]).status == 3)
  }
}
