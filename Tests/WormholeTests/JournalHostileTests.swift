import Foundation
import Glibc
import KeyedArchive
import TestSupport
import Testing
import WormholeVocabulary

@testable import Wormhole

/// A neighbour in the same container writes whatever it likes: the journal and the mailbox
/// listing must hold (issue 7).
@Suite struct JournalHostileTests {
  private func append(_ line: String, to temporary: TemporaryDirectory) throws {
    let handle = try #require(FileHandle(forWritingAtPath: temporary.path + "/.wormhole-journal"))
    handle.seekToEndOfFile()
    handle.write(Data((line + "\n").utf8))
    handle.closeFile()
  }

  private func foreignRecord(_ sequence: String, identifier: String = "foreign") -> String {
    #"{"seq":\#(sequence),"time":"2026-11-29T12:41:09.123Z","pid":1,"sender":"x","transiting":"file","kind":"notify","identifier":"\#(identifier)","bytes":0,"outcome":"ok"}"#
  }

  // MARK: Sequence numbers

  @Test func aHugeSequenceNumberIsNotARecordAndNumberingContinues() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessage(nil, identifier: "a")
    try append(foreignRecord("9223372036854775807"), to: temporary)
    let next = try wormhole.passMessage(nil, identifier: "b")
    #expect(next.sequence == 2)
    let other = try Wormhole(directory: temporary.path)
    #expect(try other.passMessage(nil, identifier: "c").sequence == 3)
    #expect(try wormhole.trafficRecords().map(\.sequence) == [1, 2, 3])
  }

  @Test func aForeignJumpThenASmallNumberLeavesNoReaderDeaf() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessage(nil, identifier: "a")
    let reader = TrafficJournalReader(directory: temporary.path, startingAtEnd: true)
    try append(foreignRecord(String(UInt64(1) << 62)), to: temporary)
    try append(foreignRecord("5"), to: temporary)
    let next = try Wormhole(directory: temporary.path).passMessage(nil, identifier: "b")
    #expect(next.sequence == 6)
    #expect(reader.readAvailable().map(\.sequence) == [5, 6])
  }

  @Test func anAppenderAtTheMaximumRefusesRatherThanStartingAgainAtOne() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    temporary.write(".wormhole-journal", foreignRecord(String(TrafficRecord.maximumSequence)) + "\n")
    let reader = TrafficJournalReader(directory: temporary.path, startingAtEnd: true)
    let wormhole = try Wormhole(directory: temporary.path)
    #expect(throws: WormholeError.self) { try wormhole.passMessage(nil, identifier: "a") }
    #expect(reader.readAvailable().isEmpty)
    #expect(reader.restartCount == 0)
  }

  @Test func aTruncatedJournalIsReadAgainFromItsStart() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    for name in ["a", "b", "c"] { try wormhole.passMessage(nil, identifier: name) }
    let reader = TrafficJournalReader(directory: temporary.path, startingAtEnd: true)
    #expect(truncate(temporary.path + "/.wormhole-journal", 0) == 0)
    // Another process starts numbering again.
    let record = try Wormhole(directory: temporary.path).passMessage(nil, identifier: "d")
    #expect(record.sequence == 1)
    #expect(reader.readAvailable().map(\.identifier) == ["d"])
    #expect(reader.restartCount >= 1)
  }

  @Test func aDeletedJournalIsFollowedToItsSuccessor() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    for name in ["a", "b", "c"] { try wormhole.passMessage(nil, identifier: name) }
    let heard = Collector<String>()
    let follower = try TrafficJournalFollower(directory: temporary.path) { records in
      for record in records { heard.append(record.identifier) }
    }
    defer { follower.cancel() }
    #expect(unlink(temporary.path + "/.wormhole-journal") == 0)
    try Wormhole(directory: temporary.path).passMessage(nil, identifier: "after")
    #expect(heard.wait(for: 1) == ["after"])
  }

  // MARK: What the journal is

  @Test(arguments: ["fifo", "symlink", "directory"])
  func aJournalThatIsNotARegularFileFailsThePassBeforeTheMailbox(kind: String) throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let journal = temporary.path + "/.wormhole-journal"
    switch kind {
    case "fifo": #expect(mkfifo(journal, 0o600) == 0)
    case "symlink": #expect(symlink(temporary.path + "/elsewhere", journal) == 0)
    default: #expect(mkdir(journal, 0o700) == 0)
    }
    let wormhole = try Wormhole(directory: temporary.path)
    for _ in 0..<3 {
      #expect(throws: WormholeError.self) { try wormhole.passMessage(.integer(1), identifier: "a") }
    }
    #expect(!temporary.exists("a.archive"))
    #expect(!temporary.exists("elsewhere"))
    #expect {
      try wormhole.trafficRecords()
    } throws: { error in
      guard case .journalUnusable = error as? WormholeError else { return false }
      return true
    }
  }

  @Test func aCharacterDeviceJournalIsReportedNotRead() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    // /dev/zero's numbers; only a privileged user may make one.
    guard mknod(temporary.path + "/.wormhole-journal", S_IFCHR | 0o600, dev_t((1 << 8) | 5)) == 0 else {
      return
    }
    let reader = TrafficJournalReader(directory: temporary.path, startingAtEnd: false)
    #expect(reader.readAvailable().isEmpty)
    #expect(reader.problem != nil)
    #expect(throws: WormholeError.self) { try TrafficJournal.records(inDirectory: temporary.path) }
  }

  @Test(.hangLimit) func aHeldJournalLockFailsThePassInBoundedTimeNamingTheHolder() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    var options = Wormhole.Options()
    options.journalLockTimeout = 0.2
    let wormhole = try Wormhole(directory: temporary.path, options: options)
    try wormhole.passMessage(nil, identifier: "a")
    let holder = open(temporary.path + "/.wormhole-journal", O_RDONLY | O_CLOEXEC)
    defer { _ = close(holder) }
    #expect(flock(holder, LOCK_EX) == 0)
    do {
      try wormhole.passMessage(nil, identifier: "b")
      Issue.record("the pass went through a held lock")
    } catch {
      guard case .journalLocked(_, let who, _) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(who.hasPrefix("pid \(getpid())"))
    }
    #expect(flock(holder, LOCK_UN) == 0)
    #expect(try wormhole.passMessage(nil, identifier: "c").sequence == 2)
  }

  // MARK: Names

  @Test(.hangLimit) func listenersMatchIdentifiersByExactBytes() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let composed = "\u{E9}"
    let decomposed = "e\u{301}"
    let heard = Collector<[UInt8]>()
    let token = try wormhole.listenForMessage(withIdentifier: composed) { received in
      heard.append(Array(received.identifier.utf8))
    }
    defer { token.cancel() }
    try wormhole.passMessage(.integer(1), identifier: decomposed)
    try wormhole.passMessage(.integer(2), identifier: composed)
    #expect(heard.wait(for: 1) == [Array(composed.utf8)])
    // The second pass was heard alone: the first never rang this listener.
    try wormhole.passMessage(.integer(3), identifier: composed)
    #expect(heard.wait(for: 2) == [Array(composed.utf8), Array(composed.utf8)])
  }

  private func makeFile(_ directory: String, _ name: [UInt8]) -> Bool {
    let path = Array(directory.utf8) + [UInt8(ascii: "/")] + name + [0]
    return path.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { chars in
        guard let base = chars.baseAddress else { return false }
        let descriptor = open(base, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        return close(descriptor) == 0
      }
    }
  }

  @Test func everyMailboxNameIsListedAndClearedByItsBytes() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let undecodable: [UInt8] = [UInt8(ascii: "x"), 0xFF] + Array(".archive".utf8)
    let prepend = Array("x\u{600}.archive".utf8)
    #expect(makeFile(temporary.path, undecodable))
    #expect(makeFile(temporary.path, prepend))
    temporary.write("plain.archive", "")
    let names = try wormhole.mailboxFileNames()
    #expect(names == [FileName(bytes: prepend), FileName(bytes: undecodable), "plain.archive"].sorted())
    #expect(
      try wormhole.identifiers().map { Array($0.utf8) } == [Array("plain".utf8), Array("x\u{600}".utf8)])
    try wormhole.clearMessageContents(forFileName: FileName(bytes: undecodable))
    #expect(try wormhole.mailboxFileNames().count == 2)
    try wormhole.clearAllMessageContents()
    #expect(try wormhole.mailboxFileNames().isEmpty)
  }

  @Test func clearAllRemovesOnlyRegularFilesAndLinks() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessage(.integer(1), identifier: "file")
    #expect(symlink("/nonexistent", temporary.path + "/link.archive") == 0)
    #expect(mkfifo(temporary.path + "/fifo.archive", 0o600) == 0)
    let socketMade = bindSocket(temporary.path + "/socket.archive")
    let deviceMade = mknod(temporary.path + "/device.archive", S_IFCHR | 0o600, dev_t((1 << 8) | 3)) == 0
    try wormhole.clearAllMessageContents()
    var left = try FileSystem.entries(of: temporary.path).filter { $0.hasSuffix(".archive") }.sorted()
    var expected: [FileName] = ["fifo.archive"]
    if socketMade { expected.append("socket.archive") }
    if deviceMade { expected.append("device.archive") }
    #expect(left == expected.sorted())
    #expect(throws: WormholeError.self) { try wormhole.clearMessageContents(forIdentifier: "fifo") }
    left = try FileSystem.entries(of: temporary.path).filter { $0.hasSuffix(".archive") }.sorted()
    #expect(left == expected.sorted())
  }

  private func bindSocket(_ path: String) -> Bool {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { _ = close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
      }
    }
  }
}
