import Foundation
import Glibc
import TestSupport
import Testing
import Wormhole

/// `wormhole-tui dump` on a home that other apps filled with whatever they liked (issue 7):
/// names that are not one String, unreadable directories, too many groups for the descriptor
/// limit.
@Suite(.hangLimit) struct DumpHostileTests {
  @Test(.hangLimit) func aJournalReplacedByAFIFOIsSaidNotWaitedOn() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    #expect(try run(["pass", "--container", home.path, "x", "1"]).status == 0)
    #expect(unlink(home.path + "/.wormhole-journal") == 0)
    #expect(mkfifo(home.path + "/.wormhole-journal", 0o600) == 0)
    let result = try run(["dump", "--container", home.path])
    #expect(result.status == 0)
    #expect(result.output.contains("x "), "\(result.output)")
    #expect(result.output.contains("traffic journal") && result.output.contains("FIFO"), "\(result.output)")
  }

  @Test func everyEntryIsListedByItsExactBytes() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let container = home.path + "/AppGroup/g"
    #expect(try run(["pass", "\u{E9}", "1", "--home", home.path, "--group", "g"]).status == 0)
    #expect(try run(["pass", "e\u{301}", "2", "--home", home.path, "--group", "g"]).status == 0)
    #expect(try run(["pass", "x\u{600}", "3", "--home", home.path, "--group", "g"]).status == 0)
    let archive = try #require(FileManager.default.contents(atPath: container + "/x\u{600}.archive"))
    try createFile(Array((container + "/bad").utf8) + [0xFF] + Array(".archive".utf8), Array(archive))
    // A group directory whose name is not UTF-8, holding one mailbox.
    let odd = Array((home.path + "/AppGroup/h").utf8) + [0xFE]
    #expect(makeDirectory(odd) == 0)
    try createFile(odd + Array("/m.archive".utf8), Array(archive))

    let dumped = try run(["dump", "--json", "--home", home.path])
    #expect(dumped.status == 0, "\(dumped.errors)")
    let document = try #require(try JSONSerialization.jsonObject(with: dumped.outputData) as? [String: Any])
    let directories = try #require(document["directories"] as? [[String: Any]])
    #expect(directories.count == 2)
    let mailboxes = try #require(directories.first?["mailboxes"] as? [[String: Any]])
    // Compared as bytes: Swift's String == would call the first two one name.
    let identifiers = mailboxes.compactMap { ($0["identifier"] as? String).map { Array($0.utf8) } }
    #expect(
      identifiers == [
        Array("bad\\x{ff}".utf8), Array("e\u{301}".utf8), Array("x\u{600}".utf8), Array("\u{E9}".utf8),
      ])
    #expect(mailboxes.first?["identifier_bytes"] as? String == "626164ff")
    // Each has its own content.
    #expect(mailboxes.compactMap { $0["summary"] as? String } == ["3", "2", "3", "1"])
    let other = try #require(directories.last)
    #expect(other["path_bytes"] as? String == hex(odd))
    #expect((other["mailboxes"] as? [[String: Any]])?.count == 1)

    let text = try run(["dump", "--home", home.path])
    // An undecodable byte shows as \x{ff}; a real backslash would show doubled.
    #expect(text.output.contains("\"bad\\x{ff}\" "), "\(text.output)")
    #expect(text.output.contains("/AppGroup/h\\x{fe}\""), "\(text.output)")
  }

  @Test func anUnreadableGroupIsReportedAndTheDumpFails() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    #expect(try run(["pass", "a", "1", "--home", home.path, "--group", "open"]).status == 0)
    #expect(try run(["pass", "b", "2", "--home", home.path, "--group", "shut"]).status == 0)
    chmod(home.path + "/AppGroup/shut", 0)
    defer { chmod(home.path + "/AppGroup/shut", 0o755) }
    let result = try runUnprivileged(["dump", "--home", home.path])
    #expect(result.status == 3, "\(result.errors)")
    #expect(result.output.contains("/AppGroup/shut (0 mailboxes, cannot list it: Permission denied)"))
    #expect(result.output.contains("/AppGroup/open (1 mailbox)"))
    #expect(result.errors.contains("/AppGroup/shut: cannot list it: Permission denied"))
  }

  @Test func anUnreadableRootIsAFailure() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    #expect(try run(["pass", "a", "1", "--container", home.path]).status == 0)
    chmod(home.path, 0)
    defer { chmod(home.path, 0o755) }
    let result = try runUnprivileged(["dump", "--container", home.path])
    #expect(result.status == 3)
    #expect(result.errors.contains("cannot list it: Permission denied"), "\(result.errors)")
  }

  @Test func presentButUnreadableMailboxesAreCountedWithTheirReason() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    #expect(try run(["pass", "a", "1", "--container", home.path]).status == 0)
    #expect(mkfifo(home.path + "/pipe.archive", 0o600) == 0)
    #expect(try run(["pass", "shut", "1", "--container", home.path]).status == 0)
    chmod(home.path + "/shut.archive", 0)
    let result = try runUnprivileged(["dump", "--container", home.path])
    #expect(result.status == 0, "\(result.errors)")
    // Unreadable mailboxes are on disk, but not present.
    #expect(result.output.contains("(1 mailbox, 2 unreadable)"), "\(result.output)")
    #expect(result.output.contains("  pipe unreadable v0 "), "\(result.output)")
    #expect(result.output.contains("error: it is not a regular file"), "\(result.output)")
    #expect(result.output.contains("  shut unreadable v0 "), "\(result.output)")
    #expect(result.output.contains("error: cannot read it: Permission denied"), "\(result.output)")
    #expect(!result.output.contains("cleared"), "\(result.output)")
  }

  @Test func tooManyGroupsForTheDescriptorLimitAreStillAllShown() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let groups = 150
    for index in 0..<groups {
      try Wormhole(directory: home.path + "/AppGroup/g\(index)").passMessage(.string("m"), identifier: "a")
    }
    let result = try runShell("ulimit -n 64 && exec \"$0\" dump --home \"$1\"", [home.path])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.components(separatedBy: " (1 mailbox)\n").count == groups + 1)
    #expect(
      result.output.contains("notice: too many wormhole directories to keep every traffic journal open"))
    // Every journal was still read: each group's pass is in the traffic.
    let all = try runShell(
      "ulimit -n 64 && exec \"$0\" dump --json --traffic 1000 --home \"$1\"", [home.path])
    let document = try #require(try JSONSerialization.jsonObject(with: all.outputData) as? [String: Any])
    #expect((document["traffic"] as? [[String: Any]])?.count == groups)
  }

  @Test func followPrintsNoticesAsTheyArrive() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    for index in 0..<80 {
      try Wormhole(directory: home.path + "/AppGroup/g\(index)").passMessage(.string("m"), identifier: "a")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
      "-c", "ulimit -n 64 && exec \"$0\" dump --follow --home \"$1\"", executablePath, home.path,
    ]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    // Standard error up to the line that says the model is ready.
    var text = ""
    while !text.contains("watching") {
      let chunk = errors.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      text += String(decoding: chunk, as: UTF8.self)
    }
    process.interrupt()
    process.waitUntilExit()
    #expect(text.contains("watching"), "\(text)")
    #expect(
      text.contains("notice: too many wormhole directories to keep every traffic journal open"), "\(text)")
  }

  @Test func anEchoedRootIsEscaped() throws {
    let result = try run(["dump", "/nonexistent/\u{1B}]0;title\u{7}"])
    #expect(result.status == 3)
    #expect(
      !result.errors.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(result.errors)")
    #expect(result.errors.contains("\\u{1b}"), "\(result.errors)")
  }
}

/// `wormhole-tui arguments…` without the privilege to ignore file permissions: as root (the
/// tests' container) the capabilities that bypass them are dropped, so a mode-000 file is
/// unreadable there too.
private func runUnprivileged(_ arguments: [String]) throws -> CommandResult {
  guard geteuid() == 0 else { return try run(arguments) }
  return try runProgram(
    "/usr/bin/setpriv", ["--bounding-set=-dac_override,-dac_read_search", "--", executablePath] + arguments)
}

/// Creates the file at the path with exactly these bytes (names that are not UTF-8 included).
private func createFile(_ path: [UInt8], _ contents: [UInt8]) throws {
  let descriptor = open(
    path.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  defer { close(descriptor) }
  _ = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}

private func makeDirectory(_ path: [UInt8]) -> Int32 {
  mkdir(path.map { CChar(bitPattern: $0) } + [0], 0o755)
}

private func hex(_ bytes: [UInt8]) -> String {
  bytes.map { String(format: "%02x", $0) }.joined()
}
