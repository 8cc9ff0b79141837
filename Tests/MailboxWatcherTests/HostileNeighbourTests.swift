import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import Synchronization
import Testing
import Wormhole
import WormholeVocabulary

@testable import MailboxWatcher

/// What another app may leave in a shared container (issue 7): names that are one String but two
/// files, names that are not UTF-8, more journals than descriptors.
@Suite(.hangLimit) struct HostileNeighbourTests {
  private let composed: FileName = "\u{E9}"
  private let decomposed: FileName = "e\u{301}"
  private let undecodable = FileName(bytes: [0x62, 0x61, 0x64, 0xFF])

  @Test func namesThatAreOneStringButTwoFilesAreTwoMailboxesAsTheyChange() throws {
    try withWatchedDirectory { directory, model, signal in
      writeAtomically(directory.path + "/\u{E9}.archive", Array("one".utf8))
      writeAtomically(directory.path + "/e\u{301}.archive", Array("two".utf8))
      writeAtomically(directory.path + "/x\u{600}.archive", Array("three".utf8))
      try writeFile(mailboxPath(directory.name, undecodable), Array("four".utf8))
      #expect(
        signal.wait(for: model) { state in
          state.mailbox(composed, in: directory.name)?.current?.bytes == Array("one".utf8)
            && state.mailbox(decomposed, in: directory.name)?.current?.bytes == Array("two".utf8)
            && state.mailbox("x\u{600}", in: directory.name)?.current?.bytes == Array("three".utf8)
            && state.mailbox(undecodable, in: directory.name)?.current?.bytes == Array("four".utf8)
        })
      #expect(model.snapshot.directories[directory.name]?.mailboxes.count == 4)
      // Removing one leaves its canonically equivalent neighbour alone.
      unlink(directory.path + "/e\u{301}.archive")
      #expect(unlink(mailboxPath(directory.name, undecodable).bytes.map { CChar(bitPattern: $0) } + [0]) == 0)
      #expect(
        signal.wait(for: model) { state in
          state.mailbox(decomposed, in: directory.name)?.isPresent == false
            && state.mailbox(undecodable, in: directory.name)?.isPresent == false
        })
      #expect(model.snapshot.mailbox(composed, in: directory.name)?.isPresent == true)
    }
  }

  @Test func aDirectoryWhoseNameIsNotUTF8IsFoundAndWatched() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let signal = UpdateSignal()
    let model = try LiveModel(roots: [.home(home.path)], onUpdate: signal.handler)
    defer { model.cancel() }
    let group = FileName(home.path).appending(FileName(bytes: [0x67, 0xFE]))
    #expect(mkdir(group.bytes.map { CChar(bitPattern: $0) } + [0], 0o755) == 0)
    try writeFile(mailboxPath(group, "m"), Array("one".utf8))
    #expect(signal.wait(for: model) { $0.mailbox("m", in: group)?.current?.bytes == Array("one".utf8) })
    #expect(model.snapshot.directories[group]?.isPolled == false)
    try writeFile(mailboxPath(group, "m"), Array("two".utf8))
    #expect(signal.wait(for: model) { $0.mailbox("m", in: group)?.current?.bytes == Array("two".utf8) })
  }

  @Test func journalsPastTheDescriptorBudgetAreStillRead() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    for index in 0..<3 {
      try Wormhole(directory: home.path + "/g\(index)").passMessage(.string("start"), identifier: "a")
    }
    var watcherConfiguration = MailboxWatcher.Configuration()
    watcherConfiguration.maximumOpenJournals = 1
    let signal = UpdateSignal()
    let model = try LiveModel(
      roots: [.home(home.path)], watcherConfiguration: watcherConfiguration, onUpdate: signal.handler)
    defer { model.cancel() }
    let state = model.snapshot
    #expect(state.traffic.count == 3)
    #expect(state.notices.contains { $0.contains("too many wormhole directories") })
    var options = Wormhole.Options()
    options.sender = "late"
    for index in 0..<3 {
      try Wormhole(directory: home.path + "/g\(index)", options: options).passMessage(
        .string("more"), identifier: "a")
    }
    #expect(
      signal.wait(for: model) { state in
        state.traffic.filter { $0.sender == "late" }.count == 3
          && state.directories.values.allSatisfy { $0.mailboxes["a"]?.lastWriter == "late" }
      })
    // Each record once: a journal read again from its start does not repeat what was seen.
    #expect(model.snapshot.traffic.count == 6)
  }

  @Test func theWatchLimitNoticeArrivesWithAnUpdate() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    try Wormhole(directory: directory.path).passMessage(.string("x"), identifier: "a")
    var watcherConfiguration = MailboxWatcher.Configuration()
    watcherConfiguration.maximumWatches = 0
    let signal = UpdateSignal()
    let notices = NoticeCollector()
    let model = try LiveModel(
      roots: [.container(directory.path)], watcherConfiguration: watcherConfiguration,
      onUpdate: { update in
        notices.add(update.newNotices)
        signal.handler(update)
      })
    defer { model.cancel() }
    _ = model.sync { _ in true }
    #expect(notices.all.count == 1)
    #expect(notices.all.first?.contains("inotify watch limit") == true)
  }

  @Test func operationsNameMailboxesByTheirBytes() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let operations = MailboxOperations(sender: "dashboard")
    try operations.pass(.string("one"), identifier: composed, directory: directory.name)
    try operations.pass(.string("two"), identifier: decomposed, directory: directory.name)
    try operations.clear(identifier: decomposed, directory: directory.name)
    #expect(FileManager.default.fileExists(atPath: directory.path + "/\u{E9}.archive"))
    #expect(mailboxesOnDisk(directory.path).count == 1)
    // A mailbox whose name is not UTF-8 is cleared by its bytes.
    let path =
      (Array(directory.path.utf8) + [UInt8(ascii: "/")] + undecodable.bytes + Array(".archive".utf8))
      .map { CChar(bitPattern: $0) } + [0]
    let made = open(path, O_CREAT | O_WRONLY, 0o600)
    #expect(made >= 0)
    close(made)
    #expect(access(path, F_OK) == 0)
    try operations.clear(identifier: undecodable, directory: directory.name)
    #expect(access(path, F_OK) != 0)
    #expect(FileManager.default.fileExists(atPath: directory.path + "/\u{E9}.archive"))
    // Passing still needs a name the library takes as text.
    #expect(throws: OperationError.nameNotText(undecodable, operation: "pass to")) {
      try operations.pass(.integer(1), identifier: undecodable, directory: directory.name)
    }
    #expect(
      OperationError.nameNotText(undecodable, operation: "clear").description.hasPrefix(
        "cannot clear a name that is not UTF-8 yet: \"bad\\x{ff}\""))
  }
}

/// Notices delivered through updates, in order.
private final class NoticeCollector: Sendable {
  private let notices = Mutex<[String]>([])
  func add(_ more: [String]) { notices.withLock { $0 += more } }
  var all: [String] { notices.withLock { $0 } }
}

private func mailboxPath(_ directory: FileName, _ identifier: FileName) -> FileName {
  directory.appending(FileName(bytes: identifier.bytes + Array(".archive".utf8)))
}

/// Writes a file named by exact bytes, in place.
private func writeFile(_ path: FileName, _ contents: [UInt8]) throws {
  let descriptor = open(
    path.bytes.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  defer { close(descriptor) }
  _ = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}
