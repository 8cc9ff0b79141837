import KeyedArchive
import MailboxModel
import Testing
import Wormhole
import WormholeVocabulary

@testable import MailboxWatcher

/// The watcher reads the transfer identifier the library puts on each mailbox it writes.
@Suite(.hangLimit) struct TransferIdentifierTests {
  @Test func aLibraryWriteIsObservedWithItsRecordsTransferIdentifier() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let wormhole = try Wormhole(directory: directory.path)
    let archive = try KeyedArchiveEncoder().encodeBytes(.string("hi"))
    let record = try wormhole.passArchive(archive, identifier: "a")
    let transfer = try #require(record.transfer)
    let observed = DirectoryScanner.observe(
      directory: FileName(directory.path), identifier: "a", limit: 1 << 20)
    guard case .file(_, _, _, _, let seen, _)? = observed?.0 else {
      Issue.record("not observed as a file: \(String(describing: observed))")
      return
    }
    #expect(seen == transfer)
    // A file another program wrote has none.
    writeAtomically(directory.path + "/b.archive", archive)
    let plain = DirectoryScanner.observe(directory: FileName(directory.path), identifier: "b", limit: 1 << 20)
    guard case .file(_, _, _, _, let none, _)? = plain?.0 else {
      Issue.record("not observed as a file")
      return
    }
    #expect(none == nil)
  }

  /// With no window for the size rule, a library pass pairs by its transfer identifier alone.
  @Test func aLibraryPassPairsByItsTransferIdentifierAlone() throws {
    var configuration = ModelConfiguration()
    configuration.matchWindowMilliseconds = 0
    try withWatchedDirectory(configuration: configuration) { directory, model, signal in
      var options = Wormhole.Options()
      options.sender = "app"
      try Wormhole(directory: directory.path, options: options).passMessage(.string("hello"), identifier: "g")
      #expect(signal.wait(for: model) { $0.mailbox("g", in: directory.path)?.lastWriter == "app" })
      #expect(signal.wait(for: model) { $0.nextDeadline == nil })
      let state = model.snapshot
      #expect(state.traffic.map(\.kind) == [.passed])
      #expect(state.traffic.first?.transfer != nil)
      #expect(state.traffic.first?.versionSerial == state.mailbox("g", in: directory.path)?.current?.serial)
    }
  }
}
