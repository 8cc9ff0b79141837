import DevicePairing
import DeviceSession
import Testing

/// Over the broker a transfer made while the receiver is away is sent at once: it waits in the
/// receiver's persistent session, not on the sender's disk, so it arrives even when the sender
/// has stopped by then.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct SendingWhileAwayTests {
  @Test func aTransferMadeWhileTheWatchIsAwayArrivesAfterThePhoneHasStopped() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let home = BrokerHome()
    defer { home.remove() }
    let pair = try home.makePair()
    // The watch's first run makes its persistent session in the broker.
    let first = try BrokerDevice(home, pair.watch, broker: broker)
    let phone = try BrokerDevice(home, pair.phone, broker: broker)
    #expect(phone.waitReachable())
    first.stop()
    #expect(phone.waitReachable(false))
    let transfer = try phone.session.transferFile(bytes("while away"), identifier: "doc")
    #expect(throws: SessionError.transferAlreadySent(transfer.id)) {
      try phone.session.cancelTransfer(transfer.id)
    }
    phone.stop()

    let watch = try BrokerDevice(home, pair.watch, broker: broker)
    defer { watch.stop() }
    watch.deliveries.wait(seconds: 20) { _ in !watch.transfers.isEmpty }
    #expect(watch.transfers.map(\.id) == [transfer.id])
    #expect(watch.transfers.first?.payload == bytes("while away"))
  }
}
