import Foundation
import Glibc
import TestSupport
import Testing
import Wormhole

/// The verbs against a journal a hostile neighbour wrote (issue 7), from separate processes.
@Suite(.hangLimit) struct JournalHostileCommandTests {
  private func append(_ line: String, to directory: String) throws {
    let handle = try #require(FileHandle(forWritingAtPath: directory + "/.wormhole-journal"))
    handle.seekToEndOfFile()
    handle.write(Data((line + "\n").utf8))
    handle.closeFile()
  }

  @Test func tailJSONPrintsStoredLinesAndTextShowsUnknownKindsEscaped() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    #expect(try run(["pass", "a"] + location).status == 0)
    let foreign =
      #"{"seq":2,"time":"2026-11-29T12:41:09.123Z","pid":9,"sender":"x","transiting":"session\u001b]0;owned\u0007","kind":"deliver\u001b[2J","identifier":"a","bytes":0,"outcome":"queued","device":"watch"}"#
    try append(foreign, to: home.path)
    let json = try run(["tail", "--json"] + location)
    #expect(json.status == 0)
    #expect(json.lines.count == 2 && json.lines.last == foreign)
    let text = try run(["tail"] + location)
    #expect(text.status == 0 && text.lines.count == 2)
    let shown = try #require(text.lines.last)
    #expect(!shown.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    #expect(shown.contains(#"deliver\u{1b}[2J"#) && shown.contains("queued"))
  }

  @Test(arguments: ["fifo", "symlink", "directory"]) func anOddJournalIsReported(kind: String) throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let journal = home.path + "/.wormhole-journal"
    switch kind {
    case "fifo": #expect(mkfifo(journal, 0o600) == 0)
    case "symlink": #expect(symlink(home.path + "/elsewhere", journal) == 0)
    default: #expect(mkdir(journal, 0o700) == 0)
    }
    let pass = try run(["pass", "a", "1"] + location)
    #expect(pass.status == 3 && pass.errors.contains("traffic journal"))
    #expect(!FileManager.default.fileExists(atPath: home.path + "/a.archive"))
    let tail = try run(["tail"] + location)
    #expect(tail.status == 3 && tail.output.isEmpty && tail.errors.contains("traffic journal"))
    let listen = try run(["listen", "a", "--timeout", "5"] + location)
    #expect(listen.status == 3 && listen.errors.contains("traffic journal"))
  }

  @Test func aRunningListenerHearsPassesAfterTheJournalIsTruncated() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    for index in 0..<3 { #expect(try run(["pass", "x\(index)"] + location).status == 0) }
    let listener = try RunningCommand(["listen", "a", "--count", "1"] + location)
    #expect(listener.waitFor("listening for"))
    #expect(truncate(home.path + "/.wormhole-journal", 0) == 0)
    #expect(try run(["pass", "a", "7"] + location).status == 0)
    let result = listener.finish()
    #expect(result.status == 0 && result.lines == ["a: 7"])
  }

  @Test func aFollowingTailNoticesTheContainerRecreatedAndFollowsIt() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let container = home.path + "/container"
    #expect(mkdir(container, 0o700) == 0)
    let location = ["--container", container]
    #expect(try run(["pass", "before"] + location).status == 0)
    let follower = try RunningCommand(["tail", "--follow"] + location)
    #expect(follower.waitFor("following traffic"))
    try FileManager.default.removeItem(atPath: container)
    #expect(follower.waitFor("was removed"))
    #expect(mkdir(container, 0o700) == 0)
    #expect(follower.waitFor("created again"))
    #expect(try run(["pass", "after"] + location).status == 0)
    #expect(follower.waitFor(" after ", inErrors: false))
    follower.interrupt()
    let result = follower.finish()
    #expect(result.lines.count == 2)
  }

  @Test func aFollowingTailStopsWithAMessageWhenEvenTheParentIsGone() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let container = home.path + "/parent/container"
    try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
    let follower = try RunningCommand(["tail", "--follow", "--container", container])
    #expect(follower.waitFor("following traffic"))
    try FileManager.default.removeItem(atPath: home.path + "/parent")
    let result = follower.finish()
    #expect(result.status == 3 && result.errors.contains("stopped following"))
  }

  /// Runs `wormhole-tui arguments…` as the unprivileged user `nobody` (permission bits do not
  /// bind root), or `nil` when that is not possible here.
  private func runAsNobody(_ arguments: [String]) throws -> CommandResult? {
    let setpriv = "/usr/bin/setpriv"
    guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: setpriv) else { return nil }
    return try runProgram(
      setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", executablePath] + arguments)
  }

  @Test func aReadOnlyContainerOpensForReading() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    #expect(try run(["pass", "a", "1"] + location).status == 0)
    // Readable by everyone, writable by its owner only: read-only for `nobody`.
    for path in [home.path, home.path + "/a.archive", home.path + "/.wormhole-journal"] {
      #expect(chmod(path, path == home.path ? 0o755 : 0o644) == 0)
    }
    guard let read = try runAsNobody(["read", "a"] + location) else { return }
    #expect(read.status == 0 && read.output.hasPrefix("a: 1\n"))
    let tail = try #require(try runAsNobody(["tail"] + location))
    #expect(tail.status == 0 && tail.output.contains(" pass a "))
    let pass = try #require(try runAsNobody(["pass", "a", "2"] + location))
    #expect(pass.status == 3 && pass.errors.contains("reading works"))
    #expect(try run(["read", "a"] + location).output.hasPrefix("a: 1\n"))
  }

  @Test func aJournalWithoutPermissionIsReportedBeforeTheMailbox() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    #expect(try run(["pass", "a", "1"] + location).status == 0)
    // Anyone may write in the directory; only the journal is closed to `nobody`.
    #expect(chmod(home.path, 0o777) == 0)
    #expect(chmod(home.path + "/.wormhole-journal", 0) == 0)
    guard let pass = try runAsNobody(["pass", "b", "2"] + location) else { return }
    #expect(pass.status == 3 && pass.errors.contains("traffic journal"))
    #expect(!FileManager.default.fileExists(atPath: home.path + "/b.archive"))
    let tail = try #require(try runAsNobody(["tail"] + location))
    #expect(tail.status == 3 && tail.output.isEmpty && tail.errors.contains("traffic journal"))
  }

  @Test func aPassWaitingOnAHeldJournalLockFailsNamingTheHolder() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    #expect(try run(["pass", "a"] + location).status == 0)
    let holder = open(home.path + "/.wormhole-journal", O_RDONLY | O_CLOEXEC)
    defer { _ = close(holder) }
    #expect(flock(holder, LOCK_EX) == 0)
    // The default wait is 5 seconds.
    let pass = try run(["pass", "b"] + location)
    #expect(pass.status == 3 && pass.errors.contains("locked by pid \(getpid())"), "\(pass.errors)")
    #expect(flock(holder, LOCK_UN) == 0)
    #expect(try run(["pass", "c"] + location).status == 0)
  }

  @Test func listenTellsCanonicallyEquivalentIdentifiersApart() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let composed = "\u{E9}"
    let decomposed = "e\u{301}"
    let listen = ["listen", composed, decomposed, "--count", "2", "--timeout", "10", "--json"]
    let listener = try RunningCommand(listen + location)
    #expect(listener.waitFor("listening for"))
    #expect(try run(["pass", decomposed, "1"] + location).status == 0)
    #expect(listener.waitFor("\"message\":1", inErrors: false))
    #expect(try run(["pass", composed, "2"] + location).status == 0)
    let result = listener.finish()
    #expect(result.status == 0)
    let heard = result.lines.compactMap { line -> [UInt8]? in
      guard let start = line.range(of: "{\"identifier\":\""), let end = line.range(of: "\",\"kind\"") else {
        return nil
      }
      return Array(line[start.upperBound..<end.lowerBound].utf8)
    }
    #expect(heard == [Array(decomposed.utf8), Array(composed.utf8)])
  }
}
