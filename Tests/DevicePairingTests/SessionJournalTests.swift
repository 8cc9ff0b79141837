import DevicePairing
import DeviceSession
import Foundation
import Glibc
import TestSupport
import Testing
import Wormhole
import WormholeVocabulary

/// The records a device's journal holds once everything it observed is written.
private func records(_ device: DeviceUnderTest) -> [TrafficRecord] {
  device.device.journal.flush()
  return device.device.mailboxes.journaledRecords()
}

/// The mailbox's `user.wormhole.transfer` attribute.
private func transferAttribute(_ path: String) -> String? {
  let descriptor = open(path, O_RDONLY | O_CLOEXEC)
  guard descriptor >= 0 else { return nil }
  defer { close(descriptor) }
  return FileSystem.transferIdentifier(descriptor)
}

/// Two simulated devices of one pair in this process: each session event is a record in the
/// journal of the device's group directory, with device, peer, delivery and a shared transfer id.
@Suite(.hangLimit) struct SessionJournalTests {
  @Test func aMessageAndItsReplyAreJournaledOnBothSidesWithOneTransferIdentifier() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch, activate: false)
    defer { phone.stop(); watch.stop() }
    let session = watch.session
    let deliveries = watch.deliveries
    session.setDeliveryHandler { delivery in
      deliveries.append(delivery)
      if case .message(let message) = delivery { try? session.reply(to: message, with: bytes("pong")) }
    }
    try session.activate()
    #expect(phone.waitReachable())
    let replies = Collector<Result<[UInt8], SessionError>>()
    try phone.session.sendMessage(bytes("ping"), identifier: "tap", replyTimeout: 10) { replies.append($0) }
    #expect(replies.wait(for: 1).first == .success(bytes("pong")))

    let sent = records(phone)
    #expect(sent.map(\.kind) == [.pass, TrafficKind(rawValue: "reply")])
    #expect(sent.allSatisfy { $0.transiting == "session-message" && $0.outcome == .ok })
    #expect(
      sent.allSatisfy { $0.device == "desk/phone" && $0.peer == "desk/watch" && $0.delivery == .delivered })
    #expect(sent.map(\.bytes) == [4, 4])
    let transfer = try #require(sent.first?.transfer)
    #expect(transfer.hasPrefix("desk/phone#message-") && transfer.hasSuffix("-1"))
    #expect(sent.last?.transfer == transfer)

    let received = records(watch)
    #expect(received.count == 1)
    #expect(received.first?.device == "desk/watch")
    #expect(received.first?.peer == "desk/phone")
    #expect(received.first?.delivery == .delivered)
    #expect(received.first?.transfer == transfer)
    #expect(received.first?.identifier == "tap")
  }

  @Test func failedSendsAreFailedRecords7007And7004And7010() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let phone = try DeviceUnderTest(home.store, pair.phone)
    defer { phone.stop() }
    #expect(throws: SessionError.notReachable) {
      try phone.session.sendMessage(bytes("x"), identifier: "tap")
    }
    let large = [UInt8](repeating: 1, count: FrameCodec.defaultMaximumFrameBytes)
    #expect(throws: SessionError.self) { try phone.session.sendMessage(large, identifier: "big") }
    let watch = try DeviceUnderTest(home.store, pair.watch, activate: false)
    defer { watch.stop() }
    #expect(throws: SessionError.notActivated) {
      try watch.session.sendMessage(bytes("z"), identifier: "early")
    }

    let failed = records(phone)
    #expect(failed.map(\.identifier) == ["tap", "big"])
    #expect(failed.allSatisfy { $0.outcome == .failed && $0.delivery == .failed })
    #expect(failed.allSatisfy { $0.device == "desk/phone" && $0.peer == "desk/watch" })
    #expect(failed.first?.error?.contains("7007") == true)
    #expect(failed.last?.error?.contains("7010") == true)
    #expect(failed.last?.bytes == large.count)
    let early = records(watch)
    #expect(early.count == 1)
    #expect(early.first?.error?.contains("7004") == true)
    #expect(early.first?.device == "desk/watch")
  }

  @Test func aSilentCounterpartMakesAFailedReplyRecord7012() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { phone.stop(); watch.stop() }
    #expect(phone.waitReachable())
    let replies = Collector<Result<[UInt8], SessionError>>()
    try phone.session.sendMessage(bytes("hello?"), identifier: "ask", replyTimeout: 0.2) {
      replies.append($0)
    }
    #expect(replies.wait(for: 1).first == .failure(.replyTimedOut(seconds: 0.2)))
    let journal = records(phone)
    #expect(journal.count == 2)
    let timeout = try #require(journal.last)
    #expect(timeout.kind == TrafficKind(rawValue: "reply"))
    #expect(timeout.outcome == .failed && timeout.delivery == .failed)
    #expect(timeout.error?.contains("7012") == true)
    #expect(timeout.identifier == "ask")
    #expect(timeout.transfer == journal.first?.transfer)
  }

  @Test func aContextIsQueuedThenDeliveredWhenAcknowledged() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let phone = try DeviceUnderTest(home.store, pair.phone)
    defer { phone.stop() }
    try phone.session.updateApplicationContext(bytes("v1"), identifier: "mode")
    #expect(records(phone).map(\.delivery) == [.queued])
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { watch.stop() }
    watch.deliveries.wait { $0.contains { if case .context = $0 { true } else { false } } }
    // The watch acknowledged before it delivered; a message it sends now arrives after that.
    try watch.session.sendMessage(bytes("after"), identifier: "sync")
    phone.deliveries.wait { _ in !phone.messages.isEmpty }
    #expect(!phone.session.hasUndeliveredContext)

    let sent = records(phone).filter { $0.transiting == "session-context" }
    #expect(sent.map(\.delivery) == [.queued, .delivered])
    #expect(sent.allSatisfy { $0.transfer == "desk/phone#context-1" && $0.identifier == "mode" })
    let received = records(watch).filter { $0.transiting == "session-context" }
    #expect(received.count == 1)
    #expect(received.first?.transfer == "desk/phone#context-1")
    #expect(received.first?.delivery == .delivered)
    #expect(received.first?.identifier == "mode")
  }

  @Test func aTransferIsQueuedStoredAndDeliveredUnderOneIdentifierOnTheMailboxToo() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let phone = try DeviceUnderTest(home.store, pair.phone)
    defer { phone.stop() }
    let transfer = try phone.session.transferFile(bytes("payload"), identifier: "doc")
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { watch.stop() }
    phone.deliveries.wait { $0.contains(.transferFinished(transfer.id)) }
    #expect(phone.finishedTransfers == [transfer.id])
    let id = "desk/phone#\(transfer.id)"

    let sent = records(phone)
    #expect(sent.map(\.delivery) == [.queued, .delivered])
    #expect(sent.allSatisfy { $0.transfer == id && $0.identifier == "doc" && $0.bytes == 7 })
    let stored = records(watch)
    #expect(stored.count == 1)
    #expect(stored.first?.transiting == "session-file")
    #expect(stored.first?.device == "desk/watch" && stored.first?.peer == "desk/phone")
    #expect(stored.first?.transfer == id)
    #expect(transferAttribute(watch.device.mailboxes.directory + "/doc.archive") == id)
  }

  @Test func aCancelledTransferIsJournaledCancelled() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let phone = try DeviceUnderTest(home.store, pair.phone)
    defer { phone.stop() }
    let transfer = try phone.session.transferFile(bytes("never"), identifier: "doc")
    try phone.session.cancelTransfer(transfer.id)
    let journal = records(phone)
    #expect(journal.map(\.delivery) == [.queued, .cancelled])
    #expect(journal.allSatisfy { $0.transfer == "desk/phone#\(transfer.id)" && $0.bytes == 5 })
  }

  /// The library's session wormholes send through the same engine: their sends are journaled by
  /// the observer too, with the identifier the receiver's record shares.
  @Test func aLibrarySendIsJournaledByTheSessionWithTheSharedIdentifier() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { phone.stop(); watch.stop() }
    #expect(phone.waitReachable())
    let wormhole = try Wormhole(
      session: ListeningSession.shared(for: phone.device), transitingType: .sessionMessage)
    try wormhole.passMessage(.string("hi"), identifier: "lib")
    watch.deliveries.wait { _ in !watch.messages.isEmpty }
    let sent = records(phone).filter { $0.transfer?.hasPrefix("desk/phone#message-") == true }
    #expect(sent.map(\.identifier) == ["lib"])
    #expect(sent.first?.delivery == .delivered)
    #expect(records(watch).map(\.transfer) == sent.map(\.transfer))
  }

  @Test func removingFromTheContextIsJournaledAsAQueuedContext() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let phone = try DeviceUnderTest(home.store, pair.phone)
    defer { phone.stop() }
    try phone.session.updateApplicationContext(bytes("v1"), identifier: "mode")
    try phone.session.removeFromApplicationContext(["mode", "absent"])
    let journal = records(phone)
    #expect(journal.map(\.transfer) == ["desk/phone#context-1", "desk/phone#context-2"])
    #expect(
      journal.last?.identifier == "mode" && journal.last?.bytes == 0 && journal.last?.delivery == .queued)
  }

  /// A receiver killed after storing a batch but before recording its last id stores it again
  /// when it is re-sent: the journal must still hold one record per transfer.
  @Test func aBatchStoredAgainAfterAKillIsNotJournaledTwice() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let directory = home.store.directory(for: pair.watch)
    let mailboxes = try MailboxDelivery(device: directory, applicationGroup: "group.test")
    let batch = (1...3).map {
      FileTransfer(id: UInt64($0), identifier: $0 == 3 ? "b" : "a", payload: bytes("p\($0)"), time: 0)
    }
    let first = try FileSessionStorage(directory: directory, mailboxes: mailboxes)
    _ = try first.load()
    try first.storeReceivedTransfers(batch)
    // The kill: the journal and mailboxes hold the batch, `received-transfers` does not yet.
    try Data("00000000000000000000\n".utf8).write(to: URL(fileURLWithPath: directory.receivedTransfersPath))

    let again = try FileSessionStorage(directory: directory, mailboxes: mailboxes)
    #expect(try again.load().lastReceivedTransfer == 0)
    try again.storeReceivedTransfers(
      batch + [FileTransfer(id: 4, identifier: "a", payload: bytes("p4"), time: 0)])
    let transfers = mailboxes.journaledRecords().compactMap(\.transfer)
    #expect(transfers == (1...4).map { "desk/phone#\($0)" })
    #expect(try Data(contentsOf: URL(fileURLWithPath: mailboxes.directory + "/a.archive")) == Data("p4".utf8))
    #expect(try Data(contentsOf: URL(fileURLWithPath: mailboxes.directory + "/b.archive")) == Data("p3".utf8))
    // And once recorded, a later start reads no journal and re-stores nothing.
    #expect(
      try FileSessionStorage(directory: directory, mailboxes: mailboxes).load().lastReceivedTransfer == 4)
  }
}
