import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import Testing
import Wormhole
import WormholeVocabulary

@testable import Inotify
@testable import MailboxWatcher

private func configuration() -> ModelConfiguration {
  var configuration = ModelConfiguration()
  configuration.matchWindowMilliseconds = 3_000
  return configuration
}

private func message(_ text: String) -> ArchivedValue { .string(text) }

private func archive(_ text: String) throws -> [UInt8] {
  try KeyedArchiveEncoder().encodeBytes(.string(text))
}

private func wormhole(_ directory: String, sender: String = "tester", journalLimit: Int? = nil) throws
  -> Wormhole
{
  var options = Wormhole.Options()
  options.sender = sender
  if let journalLimit { options.journalLimit = journalLimit }
  return try Wormhole(directory: directory, options: options)
}

@Suite(.hangLimit) struct WatcherTests {
  @Test func startupFindsGroupsBelowTheHomeWithTheirJournals() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let group = home.path + "/AppGroup/g"
    let nested = home.path + "/AppGroup/h/sub"
    try wormhole(group, sender: "app").passMessage(message("one"), identifier: "a")
    try wormhole(nested).passMessage(message("two"), identifier: "b")
    try FileManager.default.createDirectory(
      atPath: home.path + "/AppGroup/empty", withIntermediateDirectories: true)
    let model = try LiveModel(roots: [.home(home.path)], configuration: configuration())
    defer { model.cancel() }
    let state = model.snapshot
    #expect(state.directories.keys.sorted() == [FileName(group), FileName(nested)])
    let mailbox = try #require(state.mailbox("a", in: group))
    #expect(mailbox.lastWriter == "app")
    // Summarized as the watcher read it, off any loop.
    #expect(try #require(mailbox.current).summary == "\"one\"")
    #expect(state.traffic.map(\.kind) == [.passed, .passed])
  }

  @Test func libraryPassIsOnePassedEntryWithItsSender() throws {
    try withWatchedDirectory(configuration: configuration()) { directory, model, signal in
      try wormhole(directory.path, sender: "app").passMessage(message("hello"), identifier: "greeting")
      let bytes = try archive("hello")
      #expect(signal.wait(for: model) { $0.mailbox("greeting", in: directory.path)?.lastWriter == "app" })
      // Past the pairing window, still one entry.
      #expect(signal.wait(for: model) { $0.nextDeadline == nil })
      let state = model.snapshot
      #expect(state.traffic.map(\.kind) == [.passed])
      #expect(state.traffic.first?.sender == "app")
      #expect(state.mailbox("greeting", in: directory.path)?.current?.bytes == bytes)
      #expect(signal.deliveredTraffic.map(\.kind) == [.passed])
    }
  }

  @Test(arguments: ["in place", "in place, in chunks", "rename"])
  func writersThatLeaveNoRecordAreReportedAsSuch(pattern: String) throws {
    try withWatchedDirectory(configuration: configuration()) { directory, model, signal in
      let bytes = try archive(String(repeating: "x", count: 5_000))
      let path = directory.path + "/copied.archive"
      switch pattern {
      case "in place": writeInPlace(path, bytes)
      case "in place, in chunks": writeInPlace(path, bytes, chunks: 7)
      default: writeAtomically(path, bytes)
      }
      #expect(signal.wait(for: model) { $0.traffic.contains { $0.kind == .changedWithoutRecord } })
      let state = model.snapshot
      #expect(state.traffic.map(\.kind) == [.changedWithoutRecord])
      let mailbox = try #require(state.mailbox("copied", in: directory.path))
      #expect(mailbox.current?.bytes == bytes)
      #expect(mailbox.lastWriter == nil)
      // An in-place writer in chunks is read once its file is closed, not half-written.
      #expect(mailbox.versionCount == 1)
    }
  }

  @Test func clearsAreReportedWithTheirSenderOrWithout() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let writer = try wormhole(directory.path, sender: "app")
    try writer.passMessage(message("a"), identifier: "a")
    try writer.passMessage(message("b"), identifier: "b")
    let signal = UpdateSignal()
    let model = try LiveModel(
      roots: [.container(directory.path)], configuration: configuration(), onUpdate: signal.handler)
    defer { model.cancel() }
    try writer.clearMessageContents(forIdentifier: "a")
    unlink(directory.path + "/b.archive")
    #expect(
      signal.wait(for: model) { state in
        state.nextDeadline == nil && state.traffic.filter { $0.kind == .cleared }.count == 2
      })
    let clears = model.snapshot.traffic.filter { $0.kind == .cleared }
    #expect(Set(clears.map { "\($0.identifier):\($0.sender ?? "-")" }) == ["a:app", "b:-"])
    #expect(model.snapshot.directories[FileName(directory.path)]?.presentCount == 0)
    #expect(model.snapshot.mailbox("a", in: directory.path)?.history.count == 1)
  }

  @Test func directoriesAppearVanishAndComeBack() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    try FileManager.default.createDirectory(
      atPath: home.path + "/AppGroup", withIntermediateDirectories: true)
    let signal = UpdateSignal()
    let model = try LiveModel(
      roots: [.home(home.path)], configuration: configuration(), onUpdate: signal.handler)
    defer { model.cancel() }
    let group = home.path + "/AppGroup/new/deep"
    try wormhole(group).passMessage(message("first"), identifier: "m")
    #expect(signal.wait(for: model) { $0.mailbox("m", in: group)?.isPresent == true })
    try FileManager.default.removeItem(atPath: home.path + "/AppGroup/new")
    #expect(signal.wait(for: model) { $0.directories[FileName(group)] == nil })
    try wormhole(group).passMessage(message("second"), identifier: "m")
    let bytes = try archive("second")
    #expect(signal.wait(for: model) { $0.mailbox("m", in: group)?.current?.bytes == bytes })
    // Renamed: the old path vanishes, the new one appears with its mailbox.
    try FileManager.default.moveItem(
      atPath: home.path + "/AppGroup/new", toPath: home.path + "/AppGroup/renamed")
    let renamed = home.path + "/AppGroup/renamed/deep"
    #expect(
      signal.wait(for: model) {
        $0.directories[FileName(group)] == nil && $0.mailbox("m", in: renamed)?.current?.bytes == bytes
      })
  }

  @Test func journalRotationLosesNoPass() throws {
    try withWatchedDirectory(configuration: configuration()) { directory, model, signal in
      // A 4 KiB journal rotates every 25 or so records. The library keeps one rotated file, so a
      // reader more than a generation behind loses records (see the next test): write in chunks
      // smaller than a generation and let the model catch up after each.
      let writer = try wormhole(directory.path, journalLimit: 4096)
      for chunk in 0..<30 {
        var last: UInt64 = 0
        for index in (chunk * 10)..<(chunk * 10 + 10) {
          last = try writer.passMessage(message("\(index)"), identifier: "m\(index % 3)").sequence
        }
        #expect(signal.wait(for: model) { $0.traffic.last?.sequence == last })
      }
      #expect(FileManager.default.fileExists(atPath: directory.path + "/" + TrafficJournal.rotatedFileName))
      let sequences = model.snapshot.traffic.compactMap(\.sequence)
      #expect(sequences == Array(1...300))
      #expect(model.snapshot.notices.isEmpty)
      #expect(
        signal.wait(for: model) { mailboxesInModel($0, directory.path) == mailboxesOnDisk(directory.path) })
    }
  }

  @Test func recordsRotatedAwayUnreadAreANoticeAndMailboxesStayRight() throws {
    try withWatchedDirectory(configuration: configuration()) { directory, model, signal in
      let writer = try wormhole(directory.path, journalLimit: 4096)
      try writer.passMessage(message("first"), identifier: "m0")
      #expect(signal.wait(for: model) { $0.traffic.count == 1 })
      model.suspend()
      for index in 0..<300 { try writer.passMessage(message("\(index)"), identifier: "m\(index % 3)") }
      model.resume()
      #expect(signal.wait(for: model) { $0.traffic.last?.sequence == 301 })
      #expect(model.snapshot.notices.contains { $0.contains("rotated away") })
      #expect(
        signal.wait(for: model) { mailboxesInModel($0, directory.path) == mailboxesOnDisk(directory.path) })
    }
  }

  @Test func floodEndsWithTheLastMessageOfEveryMailbox() throws {
    try withWatchedDirectory(configuration: configuration()) { directory, model, signal in
      let writer = try wormhole(directory.path)
      for index in 0..<3_000 {
        try writer.passMessage(message("flood \(index)"), identifier: "f\(index % 5)")
      }
      let expected = try archive("flood 2999")
      #expect(signal.wait(for: model) { $0.mailbox("f4", in: directory.path)?.current?.bytes == expected })
      #expect(
        signal.wait(for: model) { mailboxesInModel($0, directory.path) == mailboxesOnDisk(directory.path) })
      #expect(signal.wait(for: model) { $0.traffic.filter { $0.kind == .passed }.count == 3_000 })
    }
  }

  @Test func queueOverflowEndsConsistentWithTheDisk() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    for index in 0..<20 { writeAtomically(directory.path + "/old\(index).archive", try archive("old")) }
    let signal = UpdateSignal()
    let model = try LiveModel(
      roots: [.container(directory.path)], configuration: configuration(), onUpdate: signal.handler)
    defer { model.cancel() }
    // Stall the reader while far more events than the kernel queues (16,384 by default) happen.
    model.suspend()
    let writer = try wormhole(directory.path)
    for index in 0..<5_000 { try writer.passMessage(message("burst \(index)"), identifier: "b\(index % 40)") }
    for index in 0..<10 { unlink(directory.path + "/old\(index).archive") }
    writeInPlace(directory.path + "/late.archive", try archive("late"))
    model.resume()
    #expect(
      signal.wait(for: model) { mailboxesInModel($0, directory.path) == mailboxesOnDisk(directory.path) })
    #expect(model.snapshot.directories[FileName(directory.path)]?.presentCount == 51)
  }

  @Test func injectedOverflowRescansEverything() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let model = try LiveModel(roots: [.container(directory.path)], configuration: configuration())
    defer { model.cancel() }
    // Stalled, so that the file's own events are not read before the overflow is handled.
    model.suspend()
    writeAtomically(directory.path + "/x.archive", try archive("x"))
    model.resume()
    model.injectForTesting([InotifyEvent(watch: -1, mask: .queueOverflow, cookie: 0, name: "")])
    #expect(model.snapshot.mailbox("x", in: directory.path)?.isPresent == true)
  }

  @Test func watchLimitIsReportedAndTheRestIsPolled() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let group = home.path + "/AppGroup/g"
    try FileManager.default.createDirectory(atPath: group, withIntermediateDirectories: true)
    var watcherConfiguration = MailboxWatcher.Configuration()
    watcherConfiguration.maximumWatches = 1
    watcherConfiguration.pollInterval = 0.05
    let signal = UpdateSignal()
    let model = try LiveModel(
      roots: [.home(home.path)], configuration: configuration(), watcherConfiguration: watcherConfiguration,
      onUpdate: signal.handler)
    defer { model.cancel() }
    #expect(model.snapshot.notices.contains { $0.contains("watch limit") })
    try wormhole(group, sender: "app").passMessage(message("polled"), identifier: "p")
    #expect(signal.wait(for: model) { $0.mailbox("p", in: group)?.lastWriter == "app" })
    #expect(model.snapshot.directories[FileName(group)]?.isPolled == true)
    unlink(group + "/p.archive")
    #expect(signal.wait(for: model) { $0.mailbox("p", in: group)?.isPresent == false })
  }

  @Test func unreadableMailboxShowsItsErrorAndTheRestGoesOn() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    symlink("/etc/hostname", directory.path + "/link.archive")
    mkfifo(directory.path + "/fifo.archive", 0o600)
    writeAtomically(directory.path + "/fine.archive", try archive("fine"))
    let model = try LiveModel(roots: [.container(directory.path)], configuration: configuration())
    defer { model.cancel() }
    let state = model.snapshot
    #expect(state.mailbox("link", in: directory.path)?.error?.contains("symbolic link") == true)
    #expect(state.mailbox("fifo", in: directory.path)?.error?.contains("not a regular file") == true)
    #expect(state.mailbox("fine", in: directory.path)?.isPresent == true)
  }

  @Test func largeMailboxesAreStatedNotKept() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    writeInPlace(directory.path + "/big.archive", [UInt8](repeating: 1, count: 10_000))
    var watcherConfiguration = MailboxWatcher.Configuration()
    watcherConfiguration.maximumStoredBytes = 1_000
    let model = try LiveModel(
      roots: [.container(directory.path)], configuration: configuration(),
      watcherConfiguration: watcherConfiguration)
    defer { model.cancel() }
    let current = try #require(model.snapshot.mailbox("big", in: directory.path)?.current)
    #expect(current.bytes == nil && current.size == 10_000)
  }

  @Test func missingRootIsRefusedWithItsReason() {
    #expect(throws: WatcherError.self) { try LiveModel(roots: [.container("/nonexistent/wormhole")]) }
  }
}
