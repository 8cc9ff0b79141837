import DevicePairing
import DeviceSession
import Foundation
import Glibc
import Testing

/// The outbound queue as one append-only log, and transfers that arrive together stored as one
/// batch: what makes delivering a long queue cost no file per transfer.
@Suite struct BatchedTransferTests {
  private func storage(_ directory: DeviceDirectory) throws -> FileSessionStorage {
    try FileSessionStorage(
      directory: directory, mailboxes: try MailboxDelivery(device: directory, applicationGroup: "group.test"))
  }

  private func frame(_ id: UInt64, _ identifier: String, _ text: String) -> DeviceFrame {
    DeviceFrame(
      kind: .transfer, identifier: identifier, transferID: id, sender: .phone, time: 5, payload: bytes(text))
  }

  /// The names in the outbox directory.
  private func outboxFiles(_ directory: DeviceDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.outboxPath).sorted()
  }

  /// Regression: each queued transfer was a file of its own, created when queued and deleted
  /// when acknowledged; on ext4 that burst of creations and deletions made delivering 10,000
  /// queued transfers run at 0.02x the rate of renaming as many files.
  @Test func queuingAndAcknowledgingMakeNoFilePerTransfer() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let directory = home.store.directory(for: try makePair(home).phone)
    let sender = try storage(directory)
    _ = try sender.load()
    for index in 1...100 {
      _ = try sender.enqueueTransfer(identifier: "t", payload: bytes("\(index)"), time: 1)
    }
    #expect(try outboxFiles(directory) == ["log", "next-id"])
    try sender.removeTransfers(Array(1...40))
    try sender.removeTransfer(77)
    let expected = Array(41...76) + Array(78...100)
    #expect(try storage(directory).load().outboundTransfers.map(\.id) == expected.map(UInt64.init))
    #expect(try home.store.transfers(of: directory.address).map(\.payload) == expected.map { bytes("\($0)") })
    // Once the queue is empty the log is too; ids keep growing.
    let restarted = try storage(directory)
    try restarted.removeTransfers(expected.map(UInt64.init))
    var status = stat()
    #expect(stat(directory.outboxPath + "/log", &status) == 0 && status.st_size == 0)
    #expect(try restarted.enqueueTransfer(identifier: "t", payload: [], time: 1).id == 101)
  }

  @Test func aTornLastRecordIsCutOffAndLaterAppendsAreRead() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let directory = home.store.directory(for: try makePair(home).phone)
    let sender = try storage(directory)
    for text in ["one", "two", "three"] {
      _ = try sender.enqueueTransfer(identifier: "t", payload: bytes(text), time: 1)
    }
    // A process killed in the middle of appending a fourth.
    let log = FileHandle(forWritingAtPath: directory.outboxPath + "/log")
    try log?.seekToEnd()
    try log?.write(contentsOf: Data("WDT1".utf8 + [0, 0, 0, 0, 0, 0, 0, 4, 0, 0]))
    try log?.close()
    #expect(try home.store.transfers(of: directory.address).map(\.id) == [1, 2, 3])
    let restarted = try storage(directory)
    #expect(try restarted.load().outboundTransfers.map(\.payload) == ["one", "two", "three"].map(bytes))
    _ = try restarted.enqueueTransfer(identifier: "t", payload: bytes("four"), time: 1)
    #expect(
      try storage(directory).load().outboundTransfers.map(\.payload)
        == ["one", "two", "three", "four"].map(bytes))
  }

  @Test func aQueueOfOneFilePerTransferIsReadAndMovedIntoTheLog() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let directory = home.store.directory(for: pair.phone)
    // The earlier format: "WDT1" u64 id i64 time u16 length identifier u32 length archive.
    let old: [UInt8] =
      Array("WDT1".utf8) + [0, 0, 0, 0, 0, 0, 0, 7] + [0, 0, 0, 0, 0, 0, 0, 9] + [0, 1] + Array("t".utf8)
      + [0, 0, 0, 3] + Array("old".utf8)
    #expect(FileManager.default.createFile(atPath: directory.transferPath(7), contents: Data(old)))
    #expect(PairStore.queuedTransferIDs(in: directory) == [7])
    let restarted = try storage(directory)
    #expect(
      try restarted.load().outboundTransfers == [
        FileTransfer(id: 7, identifier: "t", payload: bytes("old"), time: 9)
      ])
    #expect(try outboxFiles(directory) == ["log"])
    #expect(try restarted.enqueueTransfer(identifier: "t", payload: [], time: 1).id == 8)
    try home.store.cancelTransfer(7, of: pair.phone)
    #expect(PairStore.queuedTransferIDs(in: directory) == [8])
  }

  @Test func transfersArrivingTogetherAreStoredAsOneBatchJournaledEachAndDeliveredInOrder() throws {
    let fixture = try ScriptedSessionTests.Fixture()
    defer { fixture.home.remove() }
    fixture.link.deliver(.received(frame(1, "t", "one")))
    // A resent one, new ones for two identifiers, and one repeated inside the batch.
    fixture.link.deliver(
      .receivedFrames([
        frame(1, "t", "one"), frame(2, "u", "two"), frame(3, "t", "three"), frame(3, "t", "three"),
        frame(4, "u", "four"),
      ]))
    #expect(fixture.transfers == [1, 2, 3, 4])
    let acknowledged = fixture.link.sent.filter { $0.kind == .transferAcknowledgement }.map(\.transferID)
    #expect(acknowledged == [1, 1, 2, 3, 3, 4])
    let mailboxes = try MailboxDelivery(device: fixture.directory, applicationGroup: "group.test").directory
    #expect(FileManager.default.contents(atPath: mailboxes + "/t.archive") == Data("three".utf8))
    #expect(FileManager.default.contents(atPath: mailboxes + "/u.archive") == Data("four".utf8))
    let journal = String(
      decoding: FileManager.default.contents(atPath: mailboxes + "/.wormhole-journal") ?? Data(),
      as: UTF8.self)
    let passes = journal.split(separator: "\n").filter { $0.contains("\"pass\"") }
    #expect(passes.count == 4)
    #expect(try storage(fixture.directory).load().lastReceivedTransfer == 4)
  }

  @Test func aBatchHoldingATransferNoMailboxCanHoldIsTakenOneByOne() throws {
    let fixture = try ScriptedSessionTests.Fixture()
    defer { fixture.home.remove() }
    fixture.link.deliver(
      .receivedFrames([frame(1, "t", "one"), frame(2, "../escape", "x"), frame(3, "t", "three")]))
    #expect(fixture.transfers == [1, 3])
    let failures = fixture.deliveries.values.filter { if case .failure = $0 { true } else { false } }
    #expect(failures.count == 1)
    let acknowledged = fixture.link.sent.filter { $0.kind == .transferAcknowledgement }.map(\.transferID)
    #expect(acknowledged == [1, 2, 3])
  }

  @Test func acknowledgementsArrivingTogetherFinishEachTransferInOrder() throws {
    let fixture = try ScriptedSessionTests.Fixture()
    defer { fixture.home.remove() }
    for text in ["a", "b", "c"] { try fixture.session.transferFile(bytes(text), identifier: "t") }
    let ids = fixture.session.outstandingTransfers.map(\.id)
    fixture.link.deliver(
      .receivedFrames(
        ids.map { DeviceFrame(kind: .transferAcknowledgement, transferID: $0, sender: .phone, time: 0) }))
    let finished = fixture.deliveries.values.compactMap {
      if case .transferFinished(let id) = $0 { return id } else { return nil }
    }
    #expect(finished == ids)
    #expect(fixture.session.outstandingTransfers.isEmpty)
    #expect(PairStore.queuedTransferIDs(in: fixture.directory).isEmpty)
  }
}
