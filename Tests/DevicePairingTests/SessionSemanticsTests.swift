import DevicePairing
import DeviceSession
import Dispatch
import Foundation
import Glibc
import Testing

/// Two devices of one pair in this process, over the real Unix-socket link, in a fresh home.
@Suite struct SessionSemanticsTests {
  @Test func messagesArriveLiveAndInOrderAndAreNeverStored() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { phone.stop(); watch.stop() }
    #expect(phone.waitReachable() && watch.waitReachable())
    for index in 0..<200 { try phone.session.sendMessage(bytes("m\(index)"), identifier: "tap") }
    watch.deliveries.wait { $0.count { if case .message = $0 { true } else { false } } == 200 }
    #expect(watch.messages.map { String(decoding: $0.payload, as: UTF8.self) } == (0..<200).map { "m\($0)" })
    #expect(watch.messages.map(\.sequence) == Array(1...200))
    #expect(watch.messages.allSatisfy { $0.identifier == "tap" && !$0.replyRequested })
    // Never persisted: no mailbox, nothing queued.
    #expect(!FileManager.default.fileExists(atPath: watch.device.mailboxes.directory + "/tap.archive"))
    #expect(phone.session.outstandingTransfers.isEmpty)
  }

  @Test func aMessageToAnAbsentCounterpartIsNotReachable7007() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    defer { phone.stop() }
    #expect(throws: SessionError.notReachable) {
      try phone.session.sendMessage(bytes("x"), identifier: "tap")
    }
    #expect(SessionError.notReachable.code == 7007)
    // And once the watch came and went, unreachable again.
    let watch = try DeviceUnderTest(home.store, pair.watch)
    #expect(phone.waitReachable())
    try phone.session.sendMessage(bytes("x"), identifier: "tap")
    watch.stop()
    #expect(phone.waitReachable(false))
    #expect(throws: SessionError.notReachable) {
      try phone.session.sendMessage(bytes("y"), identifier: "tap")
    }
    let inactive = try DeviceUnderTest(home.store, pair.watch, activate: false)
    defer { inactive.stop() }
    #expect(throws: SessionError.notActivated) {
      try inactive.session.sendMessage(bytes("z"), identifier: "tap")
    }
  }

  @Test func repliesArriveAndAMissingOneTimesOut7012() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch, activate: false)
    defer { phone.stop(); watch.stop() }
    // The watch echoes messages with identifier "echo" and ignores the others.
    let session = watch.session
    let deliveries = watch.deliveries
    session.setDeliveryHandler { delivery in
      deliveries.append(delivery)
      if case .message(let message) = delivery, message.identifier == "echo" {
        try? session.reply(to: message, with: bytes("re:") + message.payload)
      }
    }
    try session.activate()
    #expect(phone.waitReachable())
    let replies = Collector<Result<[UInt8], SessionError>>()
    try phone.session.sendMessage(bytes("hi"), identifier: "echo", replyTimeout: 10) { replies.append($0) }
    try phone.session.sendMessage(bytes("hi"), identifier: "silent", replyTimeout: 0.2) { replies.append($0) }
    let results = replies.wait { $0.count == 2 }
    #expect(results.count == 2)
    #expect(results.first == .success(bytes("re:hi")))
    #expect(results.last == .failure(.replyTimedOut(seconds: 0.2)))
    #expect(SessionError.replyTimedOut(seconds: 1).code == 7012)
    #expect(watch.messages.map(\.replyRequested) == [true, true])
  }

  @Test func contextsMergeIdentifiersAndTheLatestWins() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { phone.stop(); watch.stop() }
    #expect(phone.waitReachable())
    #expect(try phone.session.updateApplicationContext(bytes("1"), identifier: "a") == .sent(version: 1))
    #expect(try phone.session.updateApplicationContext(bytes("2"), identifier: "b") == .sent(version: 2))
    #expect(try phone.session.updateApplicationContext(bytes("3"), identifier: "a") == .sent(version: 3))
    watch.deliveries.wait { _ in watch.contexts.count == 3 }
    #expect(watch.contexts.map(\.changedIdentifiers) == [["a"], ["b"], ["a"]])
    let latest = SessionContext(entries: ["a": bytes("3"), "b": bytes("2")], version: 3)
    #expect(watch.contexts.last?.context == latest)
    #expect(watch.session.receivedApplicationContext == latest)
    #expect(phone.session.applicationContext == latest)
    // An identical context is not re-delivered (MMWormhole #85) unless asked for.
    #expect(try phone.session.updateApplicationContext(bytes("3"), identifier: "a") == .unchanged)
    #expect(
      try phone.session.updateApplicationContext(bytes("3"), identifier: "a", deliveringIdentical: true)
        == .sent(version: 4))
    watch.deliveries.wait { _ in watch.contexts.count == 4 }
    #expect(watch.contexts.count == 4 && watch.contexts.last?.changedIdentifiers == [])
    #expect(watch.contexts.last?.context.version == 4)
  }

  @Test func aContextSentWhileTheCounterpartIsDownArrivesOnActivationNewestOnly() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    #expect(try phone.session.updateApplicationContext(bytes("old"), identifier: "a") == .queued(version: 1))
    #expect(try phone.session.updateApplicationContext(bytes("new"), identifier: "a") == .queued(version: 2))
    #expect(phone.session.hasUndeliveredContext)
    // The sender restarts: its context is on disk, still undelivered.
    phone.stop()
    let restarted = try DeviceUnderTest(home.store, pair.phone)
    defer { restarted.stop() }
    #expect(restarted.session.applicationContext.entries == ["a": bytes("new")])
    // A handler set before activation misses nothing.
    let watch = try DeviceUnderTest(home.store, pair.watch)
    watch.deliveries.wait { _ in !watch.contexts.isEmpty }
    restarted.deliveries.wait { _ in !restarted.session.hasUndeliveredContext }
    #expect(watch.contexts.map(\.context) == [SessionContext(entries: ["a": bytes("new")], version: 2)])
    #expect(!restarted.session.hasUndeliveredContext)
    // The receiver persisted it: a restarted watch has it, and is not handed it again.
    watch.stop()
    // Each side hears the link come and go on its own thread: wait for the phone to see the first
    // watch leave and the second one come, or the message can meet the old, closed link (7007).
    #expect(restarted.waitReachable(false))
    let watchAgain = try DeviceUnderTest(home.store, pair.watch)
    defer { watchAgain.stop() }
    #expect(watchAgain.session.receivedApplicationContext.entries == ["a": bytes("new")])
    #expect(watchAgain.waitReachable() && restarted.waitReachable())
    try restarted.session.sendMessage(bytes("after"), identifier: "m")
    watchAgain.deliveries.wait { _ in !watchAgain.messages.isEmpty }
    #expect(watchAgain.contexts.isEmpty)
  }

  @Test func transfersQueueOnDiskAndArriveInOrderAfterARestart() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let queued = try (1...5).map { try phone.session.transferFile(bytes("file\($0)"), identifier: "doc") }
    #expect(queued.map(\.id) == [1, 2, 3, 4, 5])
    #expect(queued[0].metadata == ["identifier": "doc"])
    #expect(home.store.status(of: pair).phone.queuedTransfers == 5)
    phone.stop()
    // The sender comes back, then the receiver: the queue survived both absences.
    let again = try DeviceUnderTest(home.store, pair.phone)
    defer { again.stop() }
    #expect(again.session.outstandingTransfers.map(\.id) == [1, 2, 3, 4, 5])
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { watch.stop() }
    watch.deliveries.wait { _ in watch.transfers.count == 5 }
    again.deliveries.wait { _ in again.finishedTransfers.count == 5 }
    #expect(watch.transfers.map(\.id) == [1, 2, 3, 4, 5])
    #expect(
      watch.transfers.map { String(decoding: $0.payload, as: UTF8.self) } == (1...5).map { "file\($0)" })
    #expect(again.finishedTransfers == [1, 2, 3, 4, 5])
    #expect(
      again.session.outstandingTransfers.isEmpty && home.store.status(of: pair).phone.queuedTransfers == 0)
    // Stored as MMWormholeSession does: the mailbox holds the last one.
    let mailbox = try #require(
      FileManager.default.contents(atPath: watch.device.mailboxes.directory + "/doc.archive"))
    #expect(Array(mailbox) == bytes("file5"))
    // Ids keep increasing across restarts, so the receiver never mistakes a new one for a resend.
    let next = try again.session.transferFile(bytes("file6"), identifier: "doc")
    #expect(next.id == 6)
    watch.deliveries.wait { _ in watch.transfers.count == 6 }
    #expect(watch.transfers.map(\.id) == [1, 2, 3, 4, 5, 6])
  }

  @Test func aCancelledTransferIsNeverDelivered() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    defer { phone.stop() }
    let first = try phone.session.transferFile(bytes("keep"), identifier: "a")
    let second = try phone.session.transferFile(bytes("drop"), identifier: "b")
    try phone.session.cancelTransfer(second.id)
    #expect(throws: SessionError.transferNotFound(second.id)) { try phone.session.cancelTransfer(second.id) }
    #expect(phone.session.outstandingTransfers.map(\.id) == [first.id])
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { watch.stop() }
    phone.deliveries.wait { _ in phone.finishedTransfers == [first.id] }
    // A message after the transfers arrives after them: once it is here, nothing else is coming.
    try phone.session.sendMessage(bytes("end"), identifier: "end")
    watch.deliveries.wait { _ in !watch.messages.isEmpty }
    #expect(watch.transfers.map(\.identifier) == ["a"])
    #expect(!FileManager.default.fileExists(atPath: watch.device.mailboxes.directory + "/b.archive"))
    // Once sent, a transfer cannot be recalled.
    let third = try phone.session.transferFile(bytes("late"), identifier: "c")
    do {
      try phone.session.cancelTransfer(third.id)
      Issue.record("a sent transfer was cancelled")
    } catch {
      #expect(error == .transferAlreadySent(third.id) || error == .transferNotFound(third.id))
    }
  }
}

/// The API the verbs call when the device is not running, and the awaiting form of a reply.
@Suite struct StoredTransferTests {
  @Test func transfersAreListedAndCancelledFromDiskWhileTheDeviceIsDown() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    try phone.session.transferFile(bytes("one"), identifier: "a")
    try phone.session.transferFile(bytes("two"), identifier: "b")
    #expect(throws: PairStoreError.deviceRunning(pair.phone, pid: getpid())) {
      try home.store.cancelTransfer(1, of: pair.phone)
    }
    phone.stop()
    #expect(try home.store.transfers(of: pair.phone).map(\.identifier) == ["a", "b"])
    try home.store.cancelTransfer(1, of: pair.phone)
    #expect(throws: PairStoreError.session(.transferNotFound(1))) {
      try home.store.cancelTransfer(1, of: pair.phone)
    }
    let again = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { again.stop(); watch.stop() }
    watch.deliveries.wait { _ in !watch.transfers.isEmpty }
    try again.session.sendMessage(bytes("end"), identifier: "end")
    watch.deliveries.wait { _ in !watch.messages.isEmpty }
    #expect(watch.transfers.map(\.identifier) == ["b"])
  }

  @Test func anAwaitedReplyComesBackOrFails() async throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch, activate: false)
    defer { phone.stop(); watch.stop() }
    let session = watch.session
    session.setDeliveryHandler { delivery in
      if case .message(let message) = delivery {
        try? session.reply(to: message, with: message.payload.reversed())
      }
    }
    try session.activate()
    #expect(phone.waitReachable())
    #expect(
      try await phone.session.sendMessage(bytes("abc"), identifier: "q", replyTimeout: 10) == bytes("cba"))
    watch.stop()
    #expect(phone.waitReachable(false))
    await #expect(throws: SessionError.notReachable) {
      try await phone.session.sendMessage(bytes("abc"), identifier: "q", replyTimeout: 10)
    }
  }
}

/// The local link's start-up: however the two devices race, one connection, both reachable.
@Suite struct LinkStartupTests {
  @Test func devicesStartingTogetherConnectOnceAndTalkBothWays() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    for round in 0..<40 {
      let started = Collector<DeviceUnderTest>()
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        if let device = try? DeviceUnderTest(home.store, index == 0 ? pair.phone : pair.watch) {
          started.append(device)
        }
      }
      let devices = started.values
      try #require(devices.count == 2, "round \(round): a device did not start")
      for device in devices { #expect(device.waitReachable(), "round \(round)") }
      for device in devices { try device.session.sendMessage(bytes("hi \(round)"), identifier: "m") }
      for device in devices {
        device.deliveries.wait { _ in !device.messages.isEmpty }
        #expect(device.messages.map(\.payload) == [bytes("hi \(round)")], "round \(round)")
        // Exactly one connection: reachable once, never dropped and replaced.
        #expect(
          device.deliveries.values.filter(DeviceUnderTest.isReachability) == [.reachabilityChanged(true)])
      }
      for device in devices { device.stop() }
    }
  }
}
