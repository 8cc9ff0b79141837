import DevicePairing
import DeviceSession
import Foundation
import Glibc
import Testing

/// Devices in child processes, killed with SIGKILL.
@Suite struct KilledDeviceTests {
  @Test func aKilledDeviceIsUnreachableWithinASecondAndItsRoleIsFreed() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let watch = try ChildDevice([home.path, "pair", "watch", "hold"])
    let line = watch.waitForLine { $0.hasPrefix("activated ") }
    try #require(line == "activated \(watch.pid)", "the device did not start: \(watch.errorText)")
    // A second runner for the role is refused with the running one's pid.
    #expect(throws: PairStoreError.alreadyRunning(pair.watch, pid: watch.pid)) {
      _ = try SimulatedDevice(store: home.store, address: pair.watch, applicationGroup: "group.test")
    }
    #expect(home.store.status(of: pair).watch.runningPID == watch.pid)
    #expect(throws: PairStoreError.deviceRunning(pair.watch, pid: watch.pid)) {
      try home.store.delete(pair.name)
    }
    let phone = try DeviceUnderTest(home.store, pair.phone)
    defer { phone.stop() }
    #expect(phone.waitReachable())
    #expect(home.store.status(of: pair).isReachable)
    // A third party (the dashboard) watches the process end, as an event too.
    let exit = try #require(DeviceExitWatch(directory: home.store.directory(for: pair.watch)))
    #expect(exit.pid == watch.pid && !exit.waitForExit(seconds: 0))
    let killed = ContinuousClock.now
    watch.kill()
    #expect(exit.waitForExit(seconds: 1))
    // The hang-up is an event: the phone hears it at once, not at the next poll.
    #expect(phone.waitReachable(false, seconds: 1))
    #expect(ContinuousClock.now - killed < .seconds(1))
    #expect(throws: SessionError.notReachable) {
      try phone.session.sendMessage(bytes("x"), identifier: "tap")
    }
    #expect(home.store.status(of: pair).watch.runningPID == nil)
    #expect(DeviceExitWatch(directory: home.store.directory(for: pair.watch)) == nil)
    // The role is free again: a new watch runs, and the phone reaches it.
    let again = try DeviceUnderTest(home.store, pair.watch)
    defer { again.stop() }
    #expect(phone.waitReachable())
  }

  /// The payload `device-runner transfer` queues as number `index`.
  static func payload(_ index: UInt64, size: Int) -> [UInt8] {
    var bytes = (0..<8).map { UInt8(truncatingIfNeeded: index >> (56 - 8 * $0)) }
    bytes += (8..<max(size, 8)).map { UInt8(truncatingIfNeeded: (Int(index) &+ $0) % 251) }
    return bytes
  }

  @Test func aSenderKilledMidTransferLosesNothingAndDeliversNothingTwice() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { watch.stop() }
    let size = 16384
    let sender = try ChildDevice([home.path, "pair", "phone", "transfer", "400", String(size)])
    // Killed while it queues and sends: some transfers stored here, some queued, some in flight.
    watch.deliveries.wait(seconds: 30) { _ in watch.transfers.count >= 20 }
    try #require(watch.transfers.count >= 20, "no transfers came: \(sender.errorText)")
    sender.kill()
    #expect(watch.waitReachable(false))
    let outbox = PairStore.queuedTransferIDs(in: home.store.directory(for: pair.phone))
    let deliveredBeforeRestart = watch.transfers.map(\.id)
    // The sender comes back and drains its queue.
    let drain = try ChildDevice([home.path, "pair", "phone", "drain"])
    #expect(drain.waitForLine { $0 == "done" } != nil, "the queue did not drain: \(drain.errorText)")
    #expect(drain.waitForExit() == 0)
    let delivered = watch.transfers
    let ids = delivered.map(\.id)
    // Nothing twice, in order, nothing lost: every id queued (1 up to the last) came exactly once.
    #expect(ids == Array(1...UInt64(ids.count)))
    #expect(Set(outbox).isSubset(of: Set(ids)))
    #expect(ids.starts(with: deliveredBeforeRestart))
    #expect(delivered.allSatisfy { $0.identifier == "t" && $0.payload == Self.payload($0.id, size: size) })
    let last = try #require(delivered.last)
    let mailbox = try #require(
      FileManager.default.contents(atPath: watch.device.mailboxes.directory + "/t.archive"))
    #expect(Array(mailbox) == last.payload)
    #expect(PairStore.queuedTransferIDs(in: home.store.directory(for: pair.phone)).isEmpty)
  }

  @Test func aReceiverKilledMidTransferIsResentOnlyWhatItHadNotStored() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    defer { phone.stop() }
    let size = 16384
    for index in 1...UInt64(300) {
      try phone.session.transferFile(Self.payload(index, size: size), identifier: "t")
    }
    let receiver = try ChildDevice([home.path, "pair", "watch", "hold"])
    #expect(receiver.waitForLine { $0.hasPrefix("activated") } != nil, "\(receiver.errorText)")
    phone.deliveries.wait(seconds: 30) { _ in phone.finishedTransfers.count >= 10 }
    receiver.kill()
    #expect(phone.waitReachable(false))
    let stored = try String(
      contentsOfFile: home.store.directory(for: pair.watch).receivedTransfersPath, encoding: .utf8)
    let storedID = try #require(UInt64(stored.trimmingCharacters(in: .newlines)))
    // Everything acknowledged was stored; everything stored is either acknowledged or resent.
    #expect(phone.finishedTransfers == Array(1...UInt64(phone.finishedTransfers.count)))
    #expect(UInt64(phone.finishedTransfers.count) <= storedID)
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { watch.stop() }
    phone.deliveries.wait(seconds: 60) { _ in phone.session.outstandingTransfers.isEmpty }
    #expect(phone.session.outstandingTransfers.isEmpty)
    // The watch acknowledges before it hands a transfer over: wait for the last hand-over.
    watch.deliveries.wait(seconds: 10) { _ in watch.transfers.last?.id == 300 }
    // The restarted watch is handed only what the killed one had not stored, in order, once.
    let ids = watch.transfers.map(\.id)
    #expect(ids == Array((storedID + 1)...300))
    #expect(watch.transfers.allSatisfy { $0.payload == Self.payload($0.id, size: size) })
  }
}
