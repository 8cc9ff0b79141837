import DevicePairing
import DeviceSession
import Dispatch
import Testing

/// Over a link that keeps transfers and contexts for an absent counterpart (a broker), the
/// session sends them at once; live messages still need the counterpart; nothing leaves the
/// sender's queue before it is acknowledged.
@Suite struct QueuingLinkSessionTests {
  struct Fixture {
    let home = TemporaryHome()
    let link: ScriptedLink
    let session: SessionEngine

    init(queues: Bool) throws {
      link = ScriptedLink(queuesWhileUnreachable: queues)
      let pair = try makePair(home)
      let directory = home.store.directory(for: pair.phone)
      let storage = try FileSessionStorage(
        directory: directory,
        mailboxes: try MailboxDelivery(device: directory, applicationGroup: "group.test"))
      session = try SessionEngine(
        role: .phone, link: link, storage: storage, clock: { 1000 }, timer: DispatchSessionTimer())
      try session.activate()
    }
  }

  @Test func aTransferAndAContextGoOutAtOnceWhileTheCounterpartIsAway() throws {
    let fixture = try Fixture(queues: true)
    defer { fixture.home.remove() }
    #expect(!fixture.session.isReachable)
    let transfer = try fixture.session.transferFile(bytes("file"), identifier: "doc")
    #expect(fixture.link.sent.filter { $0.kind == .transfer }.map(\.transferID) == [transfer.id])
    // Still the sender's until acknowledged, and no longer cancellable: it is on its way.
    #expect(fixture.session.outstandingTransfers.map(\.id) == [transfer.id])
    #expect(throws: SessionError.transferAlreadySent(transfer.id)) {
      try fixture.session.cancelTransfer(transfer.id)
    }
    #expect(
      try fixture.session.updateApplicationContext(bytes("v"), identifier: "mode") == .queued(version: 1))
    #expect(fixture.link.sent.filter { $0.kind == .context }.map(\.sequence) == [1])
    #expect(throws: SessionError.notReachable) {
      try fixture.session.sendMessage(bytes("m"), identifier: "m")
    }

    // The counterpart comes and goes before acknowledging: the transfer is still on its way.
    fixture.link.deliver(.reachabilityChanged(true))
    fixture.link.deliver(.reachabilityChanged(false))
    #expect(throws: SessionError.transferAlreadySent(transfer.id)) {
      try fixture.session.cancelTransfer(transfer.id)
    }
    fixture.link.deliver(
      .received(DeviceFrame(kind: .transferAcknowledgement, transferID: transfer.id, sender: .watch, time: 2))
    )
    #expect(fixture.session.outstandingTransfers.isEmpty)
  }

  @Test func aLinkThatDoesNotQueueKeepsThemOnTheSendersDisk() throws {
    let fixture = try Fixture(queues: false)
    defer { fixture.home.remove() }
    let transfer = try fixture.session.transferFile(bytes("file"), identifier: "doc")
    try fixture.session.updateApplicationContext(bytes("v"), identifier: "mode")
    #expect(fixture.link.sent.isEmpty)
    try fixture.session.cancelTransfer(transfer.id)
    #expect(fixture.session.outstandingTransfers.isEmpty)
  }
}
