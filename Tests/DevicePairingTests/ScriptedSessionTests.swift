import DevicePairing
import DeviceSession
import Dispatch
import Foundation
import Testing

/// One session over a link the test scripts: exact frames in, exact frames out.
@Suite struct ScriptedSessionTests {
  struct Fixture {
    let home = TemporaryHome()
    let link = ScriptedLink()
    let deliveries = Collector<SessionDelivery>()
    let session: SessionEngine
    let directory: DeviceDirectory

    init() throws {
      let pair = try makePair(home)
      directory = home.store.directory(for: pair.watch)
      let storage = try FileSessionStorage(
        directory: directory,
        mailboxes: try MailboxDelivery(device: directory, applicationGroup: "group.test"))
      session = try SessionEngine(
        role: .watch, link: link, storage: storage, clock: { 1000 }, timer: DispatchSessionTimer())
      let deliveries = deliveries
      session.setDeliveryHandler { deliveries.append($0) }
      try session.activate()
      link.deliver(.reachabilityChanged(true))
    }

    func transfer(_ id: UInt64, _ text: String) -> LinkEvent {
      .received(
        DeviceFrame(
          kind: .transfer, identifier: "t", transferID: id, sender: .phone, time: 5, payload: bytes(text)))
    }

    var transfers: [UInt64] {
      deliveries.values.compactMap {
        if case .transfer(let transfer) = $0 { return transfer.id } else { return nil }
      }
    }
  }

  @Test func aResentTransferIsAcknowledgedAgainButNotDeliveredAgain() throws {
    let fixture = try Fixture()
    defer { fixture.home.remove() }
    fixture.link.deliver(fixture.transfer(1, "one"))
    fixture.link.deliver(fixture.transfer(2, "two"))
    // The sender did not hear the acknowledgements (it was killed) and sends both again.
    fixture.link.deliver(fixture.transfer(1, "one"))
    fixture.link.deliver(fixture.transfer(2, "two"))
    fixture.link.deliver(fixture.transfer(3, "three"))
    #expect(fixture.transfers == [1, 2, 3])
    let acknowledged = fixture.link.sent.filter { $0.kind == .transferAcknowledgement }.map(\.transferID)
    #expect(acknowledged == [1, 2, 1, 2, 3])
    // And after a restart of the receiver, from what it stored.
    let storage = try FileSessionStorage(
      directory: fixture.directory,
      mailboxes: try MailboxDelivery(device: fixture.directory, applicationGroup: "group.test"))
    #expect(try storage.load().lastReceivedTransfer == 3)
  }

  @Test func framesFromThisDevicesOwnRoleOrHostileBytesAreRefused() throws {
    let fixture = try Fixture()
    defer { fixture.home.remove() }
    fixture.link.deliver(
      .received(DeviceFrame(kind: .message, identifier: "m", sequence: 1, sender: .watch, time: 0)))
    fixture.link.deliver(.refused(.oversized(bytes: 1 << 30, limit: 1 << 20)))
    fixture.link.deliver(
      .received(DeviceFrame(kind: .context, sequence: 1, sender: .phone, time: 0, payload: [0xFF, 0, 0, 0])))
    let failures = fixture.deliveries.values.filter { if case .failure = $0 { true } else { false } }
    #expect(failures.count == 3)
    #expect(fixture.session.receivedApplicationContext == SessionContext())
    // Nothing was acknowledged for the damaged context: a good one is still taken.
    #expect(!fixture.link.sent.contains { $0.kind == .contextAcknowledgement })
  }

  @Test func anOlderOrRepeatedContextVersionIsAcknowledgedNotDelivered() throws {
    let fixture = try Fixture()
    defer { fixture.home.remove() }
    func context(_ version: UInt64, _ text: String) -> LinkEvent {
      .received(
        DeviceFrame(
          kind: .context, sequence: version, sender: .phone, time: 0,
          payload: SessionContext(entries: ["a": bytes(text)]).encodedEntries()))
    }
    fixture.link.deliver(context(2, "two"))
    fixture.link.deliver(context(1, "one"))
    fixture.link.deliver(context(2, "two"))
    let contexts = fixture.deliveries.values.compactMap { if case .context(let c) = $0 { c } else { nil } }
    #expect(contexts.map(\.context.version) == [2])
    #expect(fixture.session.receivedApplicationContext.entries == ["a": bytes("two")])
    #expect(fixture.link.sent.filter { $0.kind == .contextAcknowledgement }.map(\.sequence) == [2, 1, 2])
  }

  @Test func aReplyAfterTheCounterpartLeftFailsNotReachable() throws {
    let fixture = try Fixture()
    defer { fixture.home.remove() }
    let replies = Collector<Result<[UInt8], SessionError>>()
    try fixture.session.sendMessage(bytes("q"), identifier: "q", replyTimeout: 60) { replies.append($0) }
    fixture.link.deliver(.reachabilityChanged(false))
    #expect(replies.wait { !$0.isEmpty } == [.failure(.notReachable)])
    // A late reply for it is ignored.
    fixture.link.deliver(.reachabilityChanged(true))
    fixture.link.deliver(.received(DeviceFrame(kind: .reply, sequence: 1, sender: .phone, time: 0)))
    #expect(replies.values.count == 1)
  }

  @Test func eachWaitingReplyTimesOutAtItsOwnDeadlineAndAnsweredOnesNever() throws {
    let fixture = try Fixture()
    defer { fixture.home.remove() }
    let replies = Collector<(UInt64, Result<[UInt8], SessionError>)>()
    for (index, timeout) in [0.3, 0.1, 60, 0.2].enumerated() {
      let sequence = UInt64(index + 1)
      try fixture.session.sendMessage(bytes("q"), identifier: "q", replyTimeout: timeout) {
        replies.append((sequence, $0))
      }
    }
    // The one with a minute to wait is answered; the others time out, earliest deadline first.
    fixture.link.deliver(
      .received(DeviceFrame(kind: .reply, sequence: 3, sender: .phone, time: 0, payload: [1])))
    let results = replies.wait { $0.count == 4 }
    #expect(results.map(\.0) == [3, 2, 4, 1])
    #expect(results.first?.1 == .success([1]))
    #expect(results.dropFirst().map(\.1) == [0.1, 0.2, 0.3].map { .failure(.replyTimedOut(seconds: $0)) })
  }

  @Test func aReplyTimesOutEvenWhileEveryCooperativeThreadIsBlocked() throws {
    let fixture = try Fixture()
    defer { fixture.home.remove() }
    // Tasks that block (as a caller waiting on a semaphore would) hold the whole cooperative
    // pool; a timeout that needed it would not fire until they let go.
    let release = DispatchSemaphore(value: 0)
    let blockers = ProcessInfo.processInfo.activeProcessorCount + 1
    for _ in 0..<blockers { Task.detached { release.wait() } }
    defer { for _ in 0..<blockers { release.signal() } }
    let replies = Collector<Result<[UInt8], SessionError>>()
    try fixture.session.sendMessage(bytes("q"), identifier: "q", replyTimeout: 0.1) { replies.append($0) }
    #expect(replies.wait(seconds: 5) { !$0.isEmpty } == [.failure(.replyTimedOut(seconds: 0.1))])
  }

  @Test func aTransferNoMailboxCanHoldIsReportedAndAcknowledgedOnce() throws {
    let fixture = try Fixture()
    defer { fixture.home.remove() }
    let hostile = LinkEvent.received(
      DeviceFrame(
        kind: .transfer, identifier: "../escape", transferID: 1, sender: .phone, time: 0, payload: [1]))
    fixture.link.deliver(hostile)
    fixture.link.deliver(hostile)
    fixture.link.deliver(fixture.transfer(2, "fine"))
    let failures = fixture.deliveries.values.compactMap {
      if case .failure(let error) = $0 { error } else { nil }
    }
    #expect(failures.count == 1)
    if case .invalidIdentifier("../escape", _)? = failures.first {} else { Issue.record("\(failures)") }
    #expect(fixture.transfers == [2])
    let acknowledged = fixture.link.sent.filter { $0.kind == .transferAcknowledgement }.map(\.transferID)
    #expect(acknowledged == [1, 1, 2])
    #expect(!FileManager.default.fileExists(atPath: fixture.directory.path + "/AppGroup/escape.archive"))
  }
}
