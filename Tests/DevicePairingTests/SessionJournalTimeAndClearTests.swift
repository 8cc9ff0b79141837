import DevicePairing
import DeviceSession
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

private func nowMilliseconds() -> Int64 {
  var now = timespec()
  clock_gettime(CLOCK_REALTIME, &now)
  return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
}

/// A context removal is journaled as a clear, and every record carries when its event happened.
@Suite(.hangLimit) struct SessionJournalTimeAndClearTests {
  @Test func aContextRemovalIsAClearQueuedAndDeliveredOnTheSenderAndDeliveredOnTheReceiver() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { phone.stop(); watch.stop() }
    #expect(phone.waitReachable())
    try phone.session.updateApplicationContext(bytes("v1"), identifier: "mode")
    try phone.session.updateApplicationContext(bytes("v2"), identifier: "kept")
    watch.deliveries.wait { _ in watch.contexts.count == 2 }
    try phone.session.removeFromApplicationContext(["mode", "absent"])
    watch.deliveries.wait { _ in watch.contexts.count == 3 }
    // The watch acknowledged before it delivered; a message it sends now arrives after that.
    try watch.session.sendMessage(bytes("after"), identifier: "sync")
    phone.deliveries.wait { _ in !phone.messages.isEmpty }

    let sent = records(phone).filter { $0.transfer == "desk/phone#context-3" }
    #expect(sent.map(\.kind) == [.clear, .clear])
    #expect(sent.map(\.delivery) == [.queued, .delivered])
    #expect(sent.allSatisfy { $0.identifier == "mode" && $0.bytes == 0 && $0.outcome == .ok })
    let received = records(watch).filter { $0.transfer == "desk/phone#context-3" }
    #expect(received.map(\.kind) == [.clear])
    #expect(received.first?.identifier == "mode" && received.first?.delivery == .delivered)
    // Updates stay passes.
    let updates = records(watch).filter { $0.transfer == "desk/phone#context-2" }
    #expect(updates.map(\.kind) == [.pass])
  }

  @Test func aRecordCarriesTheTimeItsEventWasObservedNotWhenItWasWritten() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let directory = home.store.directory(for: pair.phone)
    let mailboxes = try MailboxDelivery(device: directory, applicationGroup: "group.test")
    let journal = SessionJournal(address: pair.phone, mailboxes: mailboxes)
    let before = nowMilliseconds()
    journal.observe(
      .transferQueued(
        FileTransferSummary(FileTransfer(id: 1, identifier: "doc", payload: bytes("p"), time: 0))))
    let observed = nowMilliseconds()
    // The journal gathers for 2 ms before it writes: wait for its write (no flush, which would
    // write at once).
    var written: [TrafficRecord] = []
    while written.isEmpty && nowMilliseconds() < observed + 10_000 { written = mailboxes.journaledRecords() }
    #expect(written.count == 1)
    let stamp = try #require(written.first?.milliseconds)
    #expect(stamp >= before && stamp <= observed)
  }

  @Test func aGatheredEntryKeepsItsOwnTime() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let mailboxes = try MailboxDelivery(device: home.store.directory(for: pair.phone), applicationGroup: "g")
    let details = TrafficDetails(device: "desk/phone", peer: "desk/watch", delivery: .queued, transfer: "t")
    mailboxes.record(contentsOf: [
      Wormhole.JournalEntry(
        identifier: "a", bytes: 1, transiting: .sessionFile, details: details, milliseconds: 1_234),
      Wormhole.JournalEntry(identifier: "b", bytes: 1, transiting: .sessionFile, details: details),
    ])
    let written = mailboxes.journaledRecords()
    #expect(written.map(\.milliseconds).first == 1_234)
    #expect((written.last?.milliseconds ?? 0) > 1_234)
  }
}
