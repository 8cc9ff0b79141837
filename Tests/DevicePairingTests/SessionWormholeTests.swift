import DevicePairing
import DeviceSession
import Foundation
import KeyedArchive
import Testing
import Wormhole

import struct Wormhole.ReceivedMessage

/// A session wormhole on a simulated device this process runs, with what its listeners hear and
/// what its session delivers collected.
final class WormholeDevice: Sendable {
  let device: SimulatedDevice
  let session: ListeningSession
  let deliveries = Collector<SessionDelivery>()
  let heard = Collector<ReceivedMessage>()

  init(_ store: PairStore, _ address: DeviceAddress) throws {
    device = try SimulatedDevice(store: store, address: address, applicationGroup: "group.test")
    session = ListeningSession.shared(for: device)
    let deliveries = deliveries
    session.observeSession { deliveries.append($0) }
  }

  /// A wormhole of `type` on the device; its listeners for `identifiers` feed ``heard``.
  func wormhole(_ type: TransitingType, listening identifiers: [String] = []) throws -> (
    Wormhole, [ListenerToken]
  ) {
    let wormhole = try Wormhole(session: session, transitingType: type)
    let heard = heard
    let tokens = try identifiers.map { identifier in
      try wormhole.listenForMessage(withIdentifier: identifier) { heard.append($0) }
    }
    return (wormhole, tokens)
  }

  func waitReachable() -> Bool {
    deliveries.wait { $0.contains(.reachabilityChanged(true)) }.contains(.reachabilityChanged(true))
  }

  func stop() { device.stop() }
}

private func text(_ value: String) -> ArchivedValue { .string(value) }

/// The sender's journal, once the device's session journal has written what it holds: the
/// wormhole appends nothing of its own for a session type (``WormholeTransiting/journalsItsOwnTraffic``),
/// so each send has exactly one record, with the `<pair>/<role>#…` transfer identifier both
/// devices share.
private func sessionRecords(_ wormhole: Wormhole, of device: WormholeDevice) throws -> [TrafficRecord] {
  device.device.journal.flush()
  let records = try wormhole.trafficRecords()
  #expect(records.allSatisfy { $0.transfer?.contains("#") ?? true }, "a record not from the session journal")
  return records
}

@Suite struct SessionWormholeTests {
  @Test func aSessionMessageReachesTheOtherWormholesListenerAndIsNeverStored() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try WormholeDevice(home.store, pair.phone)
    let watch = try WormholeDevice(home.store, pair.watch)
    defer { phone.stop(); watch.stop() }
    let (sender, _) = try phone.wormhole(.sessionMessage)
    let (receiver, tokens) = try watch.wormhole(.sessionMessage, listening: ["tap"])
    defer { tokens.forEach { $0.cancel() } }
    try phone.session.activateSessionListening()
    try watch.session.activateSessionListening()
    #expect(phone.waitReachable())

    for index in 0..<3 { try sender.passMessage(text("m\(index)"), identifier: "tap") }
    let heard = watch.heard.wait(for: 3)
    #expect(heard.map(\.message) == [text("m0"), text("m1"), text("m2")])
    #expect(heard.allSatisfy { $0.record.transiting == "session-message" && $0.record.peer == "pair/phone" })
    // Never stored: reading back returns nothing on either side, as in MMWormhole.
    #expect(try sender.message(withIdentifier: "tap") == nil)
    #expect(try receiver.message(withIdentifier: "tap") == nil)
    // The sender's journal (in its device's mailboxes) records each send.
    let records = try sessionRecords(sender, of: phone).filter { $0.identifier == "tap" }
    #expect(records.count == 3)
    #expect(
      records.allSatisfy { $0.device == "pair/phone" && $0.peer == "pair/watch" && $0.delivery == .delivered }
    )
    #expect(sender.directory == phone.device.mailboxes.directory)
    #expect(ListeningSession.shared(for: phone.device) === phone.session)  // one per device

    // A notification without a message travels as an empty message; the other types need one.
    let notice = try sender.passMessage(nil, identifier: "tap")
    #expect(notice.kind == .notify && notice.delivery == .delivered && notice.peer == "pair/watch")
    #expect(notice.sequence == 0 && notice.transfer == nil)  // made in memory: the session journals it
    let notified = try #require(watch.heard.wait(for: 4).last)
    #expect(notified.isNotificationOnly && notified.message == nil && notified.failure == nil)
    let (files, _) = try phone.wormhole(.sessionFile)
    #expect {
      try files.passMessage(nil, identifier: "tap")
    } throws: { error in
      guard case .sessionFailed(.sessionFile, nil, let reason)? = error as? WormholeError else {
        return false
      }
      return reason.contains("only as session-message")
    }
    #expect(phone.device.session.outstandingTransfers.isEmpty)
  }

  @Test func aSessionMessageToADownCounterpartFailsWith7007() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try WormholeDevice(home.store, pair.phone)
    defer { phone.stop() }
    let (sender, _) = try phone.wormhole(.sessionMessage)
    #expect {
      try sender.passMessage(text("x"), identifier: "tap")
    } throws: { error in
      guard case .sessionFailed(.sessionMessage, let code, _)? = error as? WormholeError else { return false }
      return code == 7007 && "\(error)".contains("not reachable")
    }
    let failed = try #require(try sessionRecords(sender, of: phone).last)
    #expect(failed.outcome == .failed && failed.delivery == .failed && failed.peer == "pair/watch")
    // Up, then down again: 7007 again.
    let watch = try WormholeDevice(home.store, pair.watch)
    _ = try watch.wormhole(.sessionMessage)
    try phone.session.activateSessionListening()
    #expect(phone.waitReachable())
    try sender.passMessage(text("y"), identifier: "tap")
    watch.stop()
    #expect(
      phone.deliveries.wait { $0.last == .reachabilityChanged(false) }.last == .reachabilityChanged(false))
    #expect(throws: WormholeError.self) { try sender.passMessage(text("z"), identifier: "tap") }
  }

  @Test func theLatestContextWinsThroughTheListener() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try WormholeDevice(home.store, pair.phone)
    defer { phone.stop() }
    let (sender, _) = try phone.wormhole(.sessionContext)
    // The watch is down: each context waits, and only the newest is delivered.
    #expect(try sender.passMessage(text("1"), identifier: "score").delivery == .queued)
    #expect(try sender.passMessage(text("2"), identifier: "score").delivery == .queued)
    #expect(try sender.passMessage(text("2"), identifier: "score").delivery?.rawValue == "unchanged")
    #expect(try sender.message(withIdentifier: "score") == text("2"))  // the device's own context

    let watch = try WormholeDevice(home.store, pair.watch)
    defer { watch.stop() }
    let (receiver, tokens) = try watch.wormhole(.sessionContext, listening: ["score"])
    defer { tokens.forEach { $0.cancel() } }
    try watch.session.activateSessionListening()
    #expect(watch.heard.wait(for: 1).map(\.message) == [text("2")])
    #expect(try receiver.message(withIdentifier: "score") == text("2"))  // the received context
    // A later one arrives live, after it: "1" never came.
    try phone.session.activateSessionListening()
    #expect(phone.waitReachable())
    try sender.passMessage(text("3"), identifier: "score")
    #expect(watch.heard.wait(for: 2).map(\.message) == [text("2"), text("3")])
    #expect(watch.heard.values.allSatisfy { $0.record.transiting == "session-context" })

    // Clearing removes the identifier from the phone's context: the watch receives the update,
    // reads nothing for it any more, and its listeners hear no message.
    try sender.clearMessageContents(forIdentifier: "score")
    #expect(try sender.message(withIdentifier: "score") == nil)
    let emptied = watch.deliveries.wait { deliveries in
      deliveries.contains {
        if case .context(let c) = $0 {
          c.context.version == 4 && c.context.entries["score"] == nil
        } else {
          false
        }
      }
    }
    #expect(
      emptied.contains {
        if case .context(let c) = $0 {
          c.context.version == 4 && c.context.entries["score"] == nil
        } else {
          false
        }
      })
    #expect(try receiver.message(withIdentifier: "score") == nil)
    #expect(watch.heard.values.count == 2)
    // The removal is journaled once, by the session, as the context version it sends.
    let removal = try #require(try sessionRecords(sender, of: phone).last)
    #expect(removal.identifier == "score" && removal.transiting == "session-context")
    #expect(removal.transfer?.hasSuffix("#context-4") == true)
  }

  @Test func aFileTransferIsStoredInTheReceiversMailboxAndHeard() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try WormholeDevice(home.store, pair.phone)
    defer { phone.stop() }
    let (sender, _) = try phone.wormhole(.sessionFile)
    let queued = try sender.passMessage(text("doc"), identifier: "doc")
    #expect(
      queued.delivery == .queued
        && queued.transfer == phone.device.session.outstandingTransfers.first.map { "pair/phone#\($0.id)" })

    let watch = try WormholeDevice(home.store, pair.watch)
    defer { watch.stop() }
    let (receiver, tokens) = try watch.wormhole(.sessionFile, listening: ["doc"])
    defer { tokens.forEach { $0.cancel() } }
    try watch.session.activateSessionListening()
    let heard = watch.heard.wait(for: 1)
    #expect(heard.map(\.message) == [text("doc")])
    #expect(
      heard.first?.record.transfer == queued.transfer && heard.first?.record.transiting == "session-file")
    #expect(FileManager.default.fileExists(atPath: watch.device.mailboxes.directory + "/doc.archive"))
    #expect(try receiver.message(withIdentifier: "doc") == text("doc"))
    // The sender's own mailbox has nothing: the transfer went to the watch.
    #expect(try sender.message(withIdentifier: "doc") == nil)
  }

  @Test func listenersSetAfterDeliveryButBeforeActivationMissNothing() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try WormholeDevice(home.store, pair.phone)
    let watch = try WormholeDevice(home.store, pair.watch)
    defer { phone.stop(); watch.stop() }
    let (messages, _) = try phone.wormhole(.sessionMessage)
    let (files, _) = try phone.wormhole(.sessionFile)
    // The watch's wormhole is open (its device reachable), but nobody listens yet.
    let (receiver, _) = try watch.wormhole(.sessionMessage)
    try phone.session.activateSessionListening()
    #expect(phone.waitReachable())
    try messages.passMessage(text("early"), identifier: "m")
    let transfer = try files.passMessage(text("late"), identifier: "f")
    // The transfer's acknowledgement means the watch took both (one link, in order).
    let id = try #require(transfer.transfer?.split(separator: "#").last.flatMap { UInt64($0) })
    #expect(phone.deliveries.wait { $0.contains(.transferFinished(id)) }.contains(.transferFinished(id)))
    #expect(watch.heard.values.isEmpty && !watch.session.isListening)

    let heard = watch.heard
    let tokens = try ["m", "f"].map { identifier in
      try receiver.listenForMessage(withIdentifier: identifier) { heard.append($0) }
    }
    defer { tokens.forEach { $0.cancel() } }
    try watch.session.activateSessionListening()
    #expect(watch.heard.wait(for: 2).map(\.message) == [text("early"), text("late")])
  }

  @Test func aWormholeOpensOnAPairAndRoleAndItsDeviceIsSharedInTheProcess() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try Wormhole(
      pair: pair.name, role: .phone, transitingType: .sessionMessage, applicationGroup: "group.test",
      home: home.path)
    let watch = try Wormhole(
      pair: pair.name, role: .watch, transitingType: .sessionMessage, applicationGroup: "group.test",
      home: home.path)
    // A second wormhole on the same device shares its session, and a file one its mailboxes.
    let watchFiles = try Wormhole(
      pair: pair.name, role: .watch, transitingType: .file, applicationGroup: "group.test", home: home.path)
    let phoneSession = try ListeningSession.shared(
      store: home.store, address: pair.phone, applicationGroup: "group.test")
    let watchSession = try ListeningSession.shared(
      store: home.store, address: pair.watch, applicationGroup: "group.test")
    defer { phoneSession.stop(); watchSession.stop() }
    #expect(
      watchFiles.directory == watch.directory && watch.directory == watchSession.device.mailboxes.directory)
    #expect {
      try ListeningSession.shared(store: home.store, address: pair.watch, applicationGroup: "group.other")
    } throws: { error in
      guard case .deviceUnavailable(let device, _)? = error as? WormholeError else { return false }
      return device == "pair/watch"
    }
    // Another process's device is refused with its reason.
    #expect {
      try SimulatedDevice(store: home.store, address: pair.watch, applicationGroup: "group.test")
    } throws: { error in
      if case .alreadyRunning? = error as? PairStoreError { return true }
      return false
    }

    let heard = Collector<ReceivedMessage>()
    let token = try watch.listenForMessage(withIdentifier: "tap") { heard.append($0) }
    defer { token.cancel() }
    let reachable = Collector<SessionDelivery>()
    phoneSession.observeSession { reachable.append($0) }
    try phoneSession.activateSessionListening()
    try watchSession.activateSessionListening()
    #expect(reachable.wait { $0.contains(.reachabilityChanged(true)) }.contains(.reachabilityChanged(true)))
    try phone.passMessage(text("hi"), identifier: "tap")
    #expect(heard.wait(for: 1).map(\.message) == [text("hi")])
  }
}
