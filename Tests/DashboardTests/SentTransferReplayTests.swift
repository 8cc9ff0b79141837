import Dashboard
import MailboxModel
import Testing
import WormholeVocabulary

private let phone: FileName = "/w/pairs/desk/phone/AppGroup/g"
private let watch: FileName = "/w/pairs/desk/watch/AppGroup/g"
private let transfer = "desk/phone#2"

private func sessionRecord(
  _ sequence: UInt64, device: String, peer: String, _ delivery: TrafficDelivery, at milliseconds: Int64
) -> TrafficRecord {
  TrafficRecord(
    sequence: sequence, milliseconds: milliseconds, processIdentifier: 7, sender: "device",
    transiting: "session-file", kind: .pass, identifier: "big2", bytes: 5, outcome: .ok,
    details: TrafficDetails(device: device, peer: peer, delivery: delivery, transfer: transfer))
}

/// The sender of a session transfer keeps no copy of it: replaying its record replays the
/// receiver's version, found by the transfer identifier both records carry.
@Suite struct SentTransferReplayTests {
  /// The watch stored transfer 2 of the phone as `big2`; the phone journaled it queued, then
  /// delivered (the selected entry, the last).
  private static func delivered() -> DashboardHarness {
    var harness = DashboardHarness()
    let now = harness.now
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(phone), .directoryAppeared(watch),
          .mailboxChanged(
            directory: watch, identifier: "big2",
            .file(
              bytes: Array("hello".utf8), size: 5, modifiedNanoseconds: now * 1_000_000, transfer: transfer)),
          .journalRecords(
            directory: watch,
            [sessionRecord(1, device: "desk/watch", peer: "desk/phone", .delivered, at: now)],
            initial: false),
          .journalRecords(
            directory: phone,
            [
              sessionRecord(1, device: "desk/phone", peer: "desk/watch", .queued, at: now),
              sessionRecord(2, device: "desk/phone", peer: "desk/watch", .delivered, at: now),
            ], initial: false),
        ], at: now + 1))
    harness.effects = []
    return harness
  }

  @Test func theSendersRecordOffersTheReceiversVersion() throws {
    var harness = Self.delivered()
    let stored = try #require(harness.state.model.traffic.first { $0.directory == watch })
    let version = try #require(harness.state.model.version(of: stored))
    harness.type("<Tab><Tab>r")
    guard case .replay(let form)? = harness.state.overlay else {
      Issue.record("no replay form: \(harness.state.status?.text ?? "")")
      return
    }
    #expect(form.source == .version(directory: watch, identifier: "big2", serial: version.serial))
    #expect(form.directory == phone)
    #expect(form.transiting == .sessionFile)
    #expect(form.note?.contains("the phone keeps no copy of a sent transfer") == true)
  }

  @Test func whenTheReceiversVersionIsGoneTheRefusalSaysSo() throws {
    var harness = Self.delivered()
    harness.send(.modelEvents([.directoryVanished(watch)], at: harness.now + 2))
    harness.type("<Tab><Tab>r")
    if case .replay? = harness.state.overlay { Issue.record("a replay form was offered") }
    let status = try #require(harness.state.status)
    #expect(status.isError)
    #expect(status.text.contains("the phone keeps no copy of a sent transfer"))
    #expect(status.text.contains("the watch's version of it is gone"))
  }
}
