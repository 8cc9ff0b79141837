import DevicePairing
import DeviceSession
import Glibc
import Testing
import WormholeVocabulary

/// `transfers cancel ID` while the device is down works on its queue on disk, and journals the
/// cancel as the running device's session does.
@Suite struct StoppedDeviceCancelTests {
  @Test func aCancelOnTheDiskOfAStoppedDeviceIsJournaledCancelledAsTheRunningDeviceWould() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home, "desk")
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let transfer = try phone.session.transferFile(bytes("never"), identifier: "doc")
    let kept = try phone.session.transferFile(bytes("later"), identifier: "doc")
    phone.stop()
    let client = PairedDeviceClient(store: home.store, address: pair.phone, applicationGroup: "group.test")
    #expect(try client.cancelTransfer(id: transfer.id) == .stoppedDevice)
    #expect(try home.store.transfers(of: pair.phone).map(\.id) == [kept.id])
    let mailboxes = try MailboxDelivery(
      device: home.store.directory(for: pair.phone), applicationGroup: "group.test")
    let journal = mailboxes.journaledRecords().filter { $0.transfer == "desk/phone#\(transfer.id)" }
    #expect(journal.map(\.delivery) == [.queued, .cancelled])
    #expect(journal.allSatisfy { $0.identifier == "doc" && $0.bytes == 5 && $0.transiting == "session-file" })
    #expect(journal.allSatisfy { $0.device == "desk/phone" && $0.peer == "desk/watch" })
    // A transfer that is not queued is not found, and journals nothing.
    #expect(throws: PairedDeviceError.session(.transferNotFound(transfer.id))) {
      try client.cancelTransfer(id: transfer.id)
    }
    #expect(mailboxes.journaledRecords().count { $0.delivery == .cancelled } == 1)
  }
}
