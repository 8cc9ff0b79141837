import DeviceSession
import Glibc
import Testing

@testable import DevicePairing

/// ``PairedDeviceClient`` on a real pair in this process: through a running device's control
/// socket, and by becoming the device for the operation. Waits are on deliveries, never on time.
@Suite struct PairedDeviceClientTests {
  /// A device that runs as `device run` does: its session, its control socket, and an echo of
  /// every message whose identifier is `echo` (the others get no reply).
  final class RunningDevice: Sendable {
    let device: DeviceUnderTest
    let control: DeviceControlServer?

    init(_ store: PairStore, _ address: DeviceAddress, serving: Bool = true) throws {
      device = try DeviceUnderTest(store, address, activate: false)
      let session = device.session
      let deliveries = device.deliveries
      session.setDeliveryHandler { delivery in
        deliveries.append(delivery)
        if case .message(let message) = delivery, message.identifier == "echo" {
          try? session.reply(to: message, with: bytes("re:") + message.payload)
        }
      }
      control = serving ? try DeviceControlServer(session: session, directory: device.device.directory) : nil
      try session.activate()
    }

    func stop() {
      control?.stop()
      device.stop()
    }
  }

  func client(_ store: PairStore, _ address: DeviceAddress) -> PairedDeviceClient {
    PairedDeviceClient(store: store, address: address, applicationGroup: "group.test")
  }

  @Test func throughARunningDeviceEachOperationIsItsOwnSessions() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try RunningDevice(home.store, pair.phone)
    let watch = try RunningDevice(home.store, pair.watch)
    defer { phone.stop(); watch.stop() }
    #expect(phone.device.waitReachable() && watch.device.waitReachable())
    let client = client(home.store, pair.phone)
    let route = PairedDeviceClient.Route.runningDevice(pid: getpid())

    #expect(
      try client.sendMessage(identifier: "echo", archive: bytes("hi"), replyTimeout: 10) == bytes("re:hi"))
    #expect(try client.sendMessage(identifier: "tap", archive: bytes("x")) == nil)
    #expect(throws: PairedDeviceError.session(.replyTimedOut(seconds: 0.2))) {
      try client.sendMessage(identifier: "silent", archive: bytes("y"), replyTimeout: 0.2)
    }
    #expect(PairedDeviceError.session(.replyTimedOut(seconds: 0.2)).code == 7012)
    let received = watch.device.deliveries.wait {
      $0.count { if case .message = $0 { true } else { false } } == 3
    }
    #expect(received.count { if case .message = $0 { true } else { false } } == 3)
    #expect(watch.device.messages.map(\.identifier) == ["echo", "tap", "silent"])

    let context = try client.updateContext(identifier: "k", archive: bytes("1"))
    #expect(context == .init(update: .sent(version: 1), isStored: true, route: route))
    #expect(try client.updateContext(identifier: "j", archive: bytes("2")).update == .sent(version: 2))
    #expect(try client.updateContext(identifier: "j", archive: bytes("2")).update == .unchanged)
    let removal = try client.removeFromContext(identifier: "k")
    #expect(removal == .init(update: .sent(version: 3), isStored: true, route: route))
    #expect(try client.removeFromContext(identifier: "k").update == .unchanged)
    // The session is the running device's: its application context is what the client changed.
    #expect(phone.device.session.applicationContext == SessionContext(entries: ["j": bytes("2")], version: 3))
    let contexts = watch.device.deliveries.wait {
      $0.count { if case .context = $0 { true } else { false } } == 3
    }
    #expect(contexts.count { if case .context = $0 { true } else { false } } == 3)
    #expect(watch.device.contexts.last?.context.entries == ["j": bytes("2")])
    #expect(watch.device.contexts.last?.changedIdentifiers == ["k"])

    let transfer = try client.transferFile(identifier: "doc", archive: bytes("page"))
    #expect(transfer == .init(id: 1, wasReachable: true, isStored: true, route: route))
    // The watch acknowledges a transfer once stored, then hands it to its handler.
    watch.device.deliveries.wait { $0.contains { if case .transfer = $0 { true } else { false } } }
    #expect(watch.device.transfers.map(\.id) == [1])
    #expect(phone.device.session.outstandingTransfers.isEmpty)
    #expect(throws: PairedDeviceError.session(.transferNotFound(1))) { try client.cancelTransfer(id: 1) }
  }

  @Test func aRunningDeviceWhoseCounterpartIsDownQueuesCancelsAndClearsTheContext() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try RunningDevice(home.store, pair.phone)
    defer { phone.stop() }
    let client = client(home.store, pair.phone)
    let route = PairedDeviceClient.Route.runningDevice(pid: getpid())

    #expect(throws: PairedDeviceError.session(.notReachable)) {
      try client.sendMessage(identifier: "tap", archive: bytes("x"))
    }
    #expect(PairedDeviceError.session(.notReachable).code == 7007)
    let first = try client.transferFile(identifier: "doc", archive: bytes("one"))
    #expect(first == .init(id: 1, wasReachable: false, isStored: false, route: route))
    let second = try client.transferFile(identifier: "doc", archive: bytes("two"))
    #expect(try client.cancelTransfer(id: first.id) == route)
    #expect(phone.device.session.outstandingTransfers.map(\.id) == [second.id])
    #expect(throws: PairedDeviceError.session(.transferNotFound(9))) { try client.cancelTransfer(id: 9) }

    #expect(try client.updateContext(identifier: "k", archive: bytes("1")).update == .queued(version: 1))
    #expect(try client.updateContext(identifier: "j", archive: bytes("2")).update == .queued(version: 2))
    let removal = try client.removeFromContext(identifiers: ["k", "absent"])
    #expect(removal == .init(update: .queued(version: 3), isStored: false, route: route))

    // The watch comes: the newest context, without k, and only the transfer not cancelled.
    let watch = try RunningDevice(home.store, pair.watch)
    defer { watch.stop() }
    // Transfers are delivered in order: had the cancelled one come, it would come first.
    _ = watch.device.deliveries.wait { $0.contains { if case .transfer = $0 { true } else { false } } }
    _ = watch.device.deliveries.wait { $0.contains { if case .context = $0 { true } else { false } } }
    #expect(watch.device.transfers.map(\.id) == [second.id])
    #expect(watch.device.contexts.map(\.context) == [SessionContext(entries: ["j": bytes("2")], version: 3)])
    #expect(watch.device.session.receivedApplicationContext.entries["k"] == nil)
  }

  @Test func asTheDeviceEachOperationTakesTheRoleAndGivesItBack() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let watch = try RunningDevice(home.store, pair.watch)
    let client = client(home.store, pair.phone)
    let runLock = home.store.directory(for: pair.phone).runLockPath

    #expect(
      try client.sendMessage(identifier: "echo", archive: bytes("hi"), replyTimeout: 10) == bytes("re:hi"))
    #expect(throws: PairedDeviceError.session(.replyTimedOut(seconds: 0.2))) {
      try client.sendMessage(identifier: "silent", archive: bytes("y"), replyTimeout: 0.2)
    }
    #expect(RunLock.holder(at: runLock) == nil)
    let context = try client.updateContext(identifier: "k", archive: bytes("1"))
    #expect(context == .init(update: .sent(version: 1), isStored: true, route: .stoppedDevice))
    #expect(try client.updateContext(identifier: "k", archive: bytes("1")).update == .unchanged)
    let forced = try client.updateContext(identifier: "k", archive: bytes("1"), deliveringIdentical: true)
    #expect(forced.update == .sent(version: 2) && forced.isStored)
    let removal = try client.clearContext()
    #expect(removal == .init(update: .sent(version: 3), isStored: true, route: .stoppedDevice))
    #expect(watch.device.session.receivedApplicationContext == SessionContext(entries: [:], version: 3))
    watch.device.deliveries.wait { $0.count { if case .context = $0 { true } else { false } } == 3 }
    #expect(watch.device.contexts.map(\.changedIdentifiers) == [["k"], [], ["k"]])
    let stored = try client.transferFile(identifier: "doc", archive: bytes("page"))
    #expect(stored == .init(id: 1, wasReachable: true, isStored: true, route: .stoppedDevice))
    watch.device.deliveries.wait { $0.contains { if case .transfer = $0 { true } else { false } } }
    #expect(watch.device.transfers.map(\.id) == [1])
    #expect(RunLock.holder(at: runLock) == nil)

    // The watch goes: 7007, and a transfer stays queued until it is cancelled on the files.
    watch.stop()
    #expect(throws: PairedDeviceError.session(.notReachable)) {
      try client.sendMessage(identifier: "echo", archive: bytes("hi"), replyTimeout: 1)
    }
    let queued = try client.transferFile(identifier: "doc", archive: bytes("later"))
    #expect(queued == .init(id: 2, wasReachable: false, isStored: false, route: .stoppedDevice))
    #expect(try home.store.transfers(of: pair.phone).map(\.id) == [2])
    #expect(try client.cancelTransfer(id: 2) == .stoppedDevice)
    #expect(try home.store.transfers(of: pair.phone).isEmpty)
    #expect(RunLock.holder(at: runLock) == nil)
  }

  @Test func aRoleHeldWithoutAControlSocketAndAMissingPairAreSaidSo() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try RunningDevice(home.store, pair.phone, serving: false)
    defer { phone.stop() }
    let client = client(home.store, pair.phone)
    #expect(throws: PairedDeviceError.notAnswering(pair.phone, pid: getpid())) {
      try client.updateContext(identifier: "k", archive: bytes("1"))
    }
    #expect(
      PairedDeviceError.notAnswering(pair.phone, pid: 7).description.contains(
        "the phone of pair is running (pid 7) and does not answer on its control socket"))
    let missing = PairedDeviceClient(
      store: home.store, address: DeviceAddress(pair: try PairStore.name("gone"), role: .watch),
      applicationGroup: "group.test")
    #expect(throws: PairedDeviceError.store(.noSuchPair(try PairStore.name("gone")))) {
      try missing.transferFile(identifier: "doc", archive: bytes("x"))
    }
    #expect(throws: PairedDeviceError.store(.noSuchPair(try PairStore.name("gone")))) {
      try missing.cancelTransfer(id: 1)
    }
  }

  @Test func aStoppedServerRemovesItsSocketAndTheRoleIsTakenAgain() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try RunningDevice(home.store, pair.phone)
    let socket = DeviceControlChannel.socketPath(of: home.store.directory(for: pair.phone))
    #expect(access(socket, F_OK) == 0)
    phone.stop()
    #expect(access(socket, F_OK) != 0)
    let client = client(home.store, pair.phone)
    #expect(try client.updateContext(identifier: "k", archive: bytes("1")).route == .stoppedDevice)
  }
}
