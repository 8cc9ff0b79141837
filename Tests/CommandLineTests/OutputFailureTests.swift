import Foundation
import Glibc
import TestSupport
import Testing

/// Output that cannot be written: every verb says so and stops, none goes on having written
/// nothing, and a closed pipe ends the command quietly, as it ends `cat`.
@Suite struct OutputFailureTests {
  static let fullDiskLine = "wormhole-tui: cannot write to standard output: No space left on device\n"

  /// A container holding one mailbox `x` and one journal record.
  private func container() throws -> TemporaryDirectory {
    let home = TemporaryDirectory()
    #expect(try run(["pass", "x", #"{"a":1}"#, "--container", home.path]).status == 0)
    return home
  }

  private func runToFullDisk(_ arguments: [String], environment: [String: String] = [:]) throws
    -> CommandResult
  {
    let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
    let command = try RunningCommand(arguments, environment: environment, standardOutput: full)
    command.closeInput()
    return command.finish()
  }

  /// HOME stands for the container, MAILBOX for its mailbox file.
  @Test(arguments: [
    ["read", "--raw", "x", "--container", "HOME"], ["read", "x", "--container", "HOME"],
    ["read", "--json", "x", "--container", "HOME"], ["tail", "--container", "HOME"],
    ["tail", "--json", "--container", "HOME"], ["dump", "--container", "HOME"],
    ["dump", "--json", "--container", "HOME"], ["inspect", "MAILBOX"], ["inspect", "--json", "MAILBOX"],
    ["--version"], ["--help"], ["read", "--help"],
  ])
  func aFullDiskIsReportedWithExitThree(arguments: [String]) throws {
    let home = try container()
    defer { home.remove() }
    let resolved = arguments.map {
      $0 == "HOME" ? home.path : $0 == "MAILBOX" ? home.path + "/x.archive" : $0
    }
    let result = try runToFullDisk(resolved)
    #expect(result.reason == .exit && result.status == 3, "\(arguments): \(result.errors)")
    #expect(result.errors == Self.fullDiskLine, "\(arguments)")
  }

  @Test func demoReportsAFullDiskAndStillRemovesItsHome() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let result = try runToFullDisk(
      ["demo", "--no-ui", "--seconds", "20"], environment: ["TMPDIR": temporary.path])
    #expect(result.reason == .exit && result.status == 3, "\(result.errors)")
    // After the line saying where the demo runs, the one line about the full disk.
    #expect(result.errors.hasSuffix(Self.fullDiskLine), "\(result.errors)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
  }

  /// Followers print nothing until a post arrives; the first line that cannot be written stops them.
  @Test(
    .hangLimit,
    arguments: [
      (["tail", "--follow"], "following traffic"), (["dump", "--follow"], "watching"),
      (["listen", "x"], "listening for"),
    ])
  func aFollowerStopsAtTheFirstLineItCannotWrite(arguments: [String], ready: String) throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
    let follower = try RunningCommand(arguments + location, standardOutput: full)
    #expect(follower.waitFor(ready))
    #expect(try run(["pass", "x", "1"] + location).status == 0)
    let result = follower.finish()
    #expect(result.reason == .exit && result.status == 3, "\(arguments): \(result.errors)")
    #expect(result.errors.hasSuffix("\n" + Self.fullDiskLine), "\(arguments): \(result.errors)")
  }

  /// A pipe whose reader has gone.
  private func closedPipe() throws -> FileHandle {
    let pipe = Pipe()
    try pipe.fileHandleForReading.close()
    return pipe.fileHandleForWriting
  }

  @Test(arguments: [["read", "x"], ["read", "--raw", "x"], ["tail"], ["dump"]])
  func aClosedPipeEndsTheCommandQuietlyAsItEndsCat(arguments: [String]) throws {
    let home = try container()
    defer { home.remove() }
    let command = try RunningCommand(
      arguments + ["--container", home.path], standardOutput: try closedPipe())
    command.closeInput()
    let result = command.finish()
    #expect(result.reason == .uncaughtSignal && result.status == SIGPIPE, "\(arguments): \(result.status)")
    #expect(result.errors.isEmpty, "\(arguments): \(result.errors)")
  }

  @Test(.hangLimit)
  func aFollowerWhoseReaderHasGoneStopsAtItsNextLine() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let follower = try RunningCommand(["tail", "--follow"] + location, standardOutput: try closedPipe())
    #expect(follower.waitFor("following traffic"))
    #expect(try run(["pass", "x"] + location).status == 0)
    let result = follower.finish()
    #expect(result.reason == .uncaughtSignal && result.status == SIGPIPE, "\(result.errors)")
    #expect(!result.errors.contains("cannot write"))
  }

  @Test func aClosedStandardOutputIsReportedNotWrittenIntoAFile() throws {
    let home = try container()
    defer { home.remove() }
    let journal = home.path + "/.wormhole-journal"
    let before = try #require(FileManager.default.contents(atPath: journal))
    for verb in ["read x", "tail"] {
      let result = try runShell("exec \"$0\" \(verb) --container \"$1\" >&-", [home.path])
      #expect(result.status == 3, "\(verb): \(result.errors)")
      #expect(result.errors == "wormhole-tui: cannot write to standard output: Bad file descriptor\n")
    }
    #expect(FileManager.default.contents(atPath: journal) == before)
  }
}
