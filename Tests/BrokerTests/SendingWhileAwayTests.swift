import DevicePairing
import DeviceSession
import Testing

/// Over the broker a transfer made while the receiver is away is sent at once: it waits in the
/// receiver's persistent session, not on the sender's disk, so it arrives even when the sender
/// has stopped by then.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct SendingWhileAwayTests {
  @Test func aTransferMadeWhileTheWatchIsAwayArrivesAfterThePhoneHasStopped() throws {
    let fixture = try PairFixture()
    defer { fixture.remove() }
    // The watch's first run makes its persistent session in the broker.
    let first = try fixture.device(fixture.pair.watch)
    let phone = try fixture.device(fixture.pair.phone)
    #expect(phone.waitReachable())
    first.stop()
    #expect(phone.waitReachable(false))
    let transfer = try phone.session.transferFile(bytes("while away"), identifier: "doc")
    #expect(throws: SessionError.transferAlreadySent(transfer.id)) {
      try phone.session.cancelTransfer(transfer.id)
    }
    phone.stop()

    let watch = try fixture.device(fixture.pair.watch)
    watch.deliveries.wait(seconds: 20) { _ in !watch.transfers.isEmpty }
    #expect(watch.transfers.map(\.id) == [transfer.id])
    #expect(watch.transfers.first?.payload == bytes("while away"))
  }
}
