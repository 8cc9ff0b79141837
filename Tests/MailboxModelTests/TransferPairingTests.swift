import MailboxModel
import Testing
import WormholeVocabulary

private let directory: FileName = "/w/pairs/desk/watch/AppGroup/g"

private func file(_ text: String, transfer: String? = nil) -> MailboxObservation {
  .file(bytes: Array(text.utf8), size: text.utf8.count, modifiedNanoseconds: 1, transfer: transfer)
}

private func record(
  _ sequence: UInt64, _ identifier: String, bytes: Int, transfer: String? = nil, transiting: String = "file",
  details: TrafficDetails = TrafficDetails(), outcome: TrafficOutcome = .ok
) -> TrafficRecord {
  var details = details
  if details.transfer == nil { details.transfer = transfer }
  return TrafficRecord(
    sequence: sequence, milliseconds: 1_000, processIdentifier: 42, sender: "app", transiting: transiting,
    kind: .pass, identifier: identifier, bytes: bytes, outcome: outcome,
    error: outcome == .ok ? nil : "the counterpart device is not reachable (WCErrorCodeNotReachable 7007)",
    details: details)
}

private struct Harness {
  var state = ModelState()
  var traffic: [TrafficEntry] = []

  init() { _ = state.apply(.directoryAppeared(directory), at: 0) }

  mutating func apply(_ event: ModelEvent, at now: Int64) {
    for effect in state.apply(event, at: now) {
      if case .trafficAppended(let entries) = effect { traffic += entries }
    }
  }

  mutating func change(_ identifier: FileName, _ observation: MailboxObservation, at now: Int64) {
    apply(.mailboxChanged(directory: directory, identifier: identifier, observation), at: now)
  }

  mutating func records(_ records: [TrafficRecord], at now: Int64) {
    apply(.journalRecords(directory: directory, records, initial: false), at: now)
  }

  func mailbox(_ identifier: FileName) -> Mailbox? { state.mailbox(identifier, in: directory) }
}

/// Pairing file changes with journal records by the transfer identifier the library puts on both.
@Suite struct TransferPairingTests {
  @Test func aRecordArrivingTenSecondsAfterItsFileStillPairs() throws {
    var harness = Harness()
    harness.change("a", file("hello", transfer: "0123456789abcdef"), at: 1_000)
    harness.apply(.tick, at: 5_000)
    #expect(harness.traffic.isEmpty)  // beyond the 2 s window, still waiting for its record
    harness.records([record(1, "a", bytes: 5, transfer: "0123456789abcdef")], at: 11_000)
    harness.apply(.tick, at: 200_000)
    #expect(harness.traffic.map(\.kind) == [.passed])
    let current = try #require(harness.mailbox("a")?.current)
    #expect(harness.traffic.first?.versionSerial == current.serial)
    #expect(current.sender == "app" && current.sequence == 1)
    #expect(harness.state.nextDeadline == nil)
  }

  @Test func aFileWithATransferIdentifierWaitsOnlyForItsOwnRecord() {
    var harness = Harness()
    harness.change("a", file("hello", transfer: "t-file"), at: 1_000)
    // Same identifier and size, another write's record: not this file's.
    harness.records([record(1, "a", bytes: 5, transfer: "t-other")], at: 1_100)
    #expect(harness.mailbox("a")?.current?.sequence == nil)
    harness.apply(.tick, at: 1_000 + ModelConfiguration().transferMatchWindowMilliseconds)
    #expect(harness.traffic.map(\.kind) == [.passed, .changedWithoutRecord])
  }

  @Test func twoSameSizeWritesOfOneIdentifierPairWithTheirOwnRecords() throws {
    var harness = Harness()
    // Both records first (the journal was read before the files), then each file as written.
    harness.records(
      [record(1, "a", bytes: 3, transfer: "first"), record(2, "a", bytes: 3, transfer: "second")], at: 1_000)
    harness.change("a", file("one", transfer: "first"), at: 1_010)
    let first = try #require(harness.mailbox("a")?.current)
    #expect(first.sequence == 1)
    harness.change("a", file("two", transfer: "second"), at: 1_020)
    let second = try #require(harness.mailbox("a")?.current)
    #expect(second.sequence == 2)
    #expect(harness.mailbox("a")?.history.last?.sequence == 1)
    harness.apply(.tick, at: 100_000)
    #expect(harness.traffic.map(\.kind) == [.passed, .passed])
    #expect(harness.state.traffic.map(\.versionSerial) == [first.serial, second.serial])
  }

  @Test func filesAndRecordsWithoutTransferIdentifiersKeepTheSizeAndWindowRule() {
    var harness = Harness()
    // An old journal (no transfer) and a file without the attribute: pair within the window.
    harness.records([record(1, "a", bytes: 3)], at: 1_000)
    harness.change("a", file("one"), at: 1_500)
    #expect(harness.mailbox("a")?.current?.sequence == 1)
    // Outside it they do not.
    harness.records([record(2, "b", bytes: 3)], at: 2_000)
    harness.apply(.tick, at: 4_500)
    harness.change("b", file("two"), at: 4_600)
    #expect(harness.mailbox("b")?.current?.sequence == nil)
    harness.apply(.tick, at: 10_000)
    #expect(harness.traffic.map(\.kind) == [.passed, .passed, .changedWithoutRecord])
    // A record with a transfer identifier still pairs by size with a file that kept none (a file
    // system without user extended attributes), within the window only.
    harness.records([record(3, "c", bytes: 3, transfer: "lost")], at: 20_000)
    harness.change("c", file("xyz"), at: 20_500)
    #expect(harness.mailbox("c")?.current?.sequence == 3)
  }

  @Test func oldJournalLinesStillReadAndPairAsBefore() throws {
    let line =
      #"{"seq":7,"time":"1970-01-01T00:00:01.000Z","pid":9,"sender":"app","transiting":"file","kind":"pass","identifier":"a","bytes":3,"outcome":"ok"}"#
    let old = try #require(TrafficRecord(jsonLine: line))
    #expect(old.details.isEmpty)
    var harness = Harness()
    harness.change("a", file("one"), at: 1_000)
    harness.records([old], at: 1_200)
    #expect(harness.mailbox("a")?.current?.sequence == 7)
    #expect(harness.traffic.first?.device == nil && harness.traffic.first?.transfer == nil)
  }

  @Test func sessionRecordsThatWroteNoMailboxWaitForNone() throws {
    var harness = Harness()
    let sent = TrafficDetails(
      device: "desk/watch", peer: "desk/phone", delivery: .delivered, transfer: "desk/watch#message-5-1")
    harness.records([record(1, "a", bytes: 3, transiting: "session-message", details: sent)], at: 1_000)
    #expect(harness.state.nextDeadline == nil)
    // A plain write of the same size is not taken for it.
    harness.change("a", file("cp!"), at: 1_100)
    #expect(harness.mailbox("a")?.current?.sequence == nil)
    // The receiver's stored transfer did write one, and pairs by its identifier.
    let stored = TrafficDetails(
      device: "desk/watch", peer: "desk/phone", delivery: .delivered, transfer: "desk/phone#4")
    harness.records([record(2, "b", bytes: 4, transiting: "session-file", details: stored)], at: 1_200)
    harness.change("b", file("data", transfer: "desk/phone#4"), at: 9_000)
    #expect(harness.mailbox("b")?.current?.sequence == 2)
    let entry = try #require(harness.traffic.first { $0.sequence == 2 })
    #expect(entry.isIncoming)
    #expect(harness.traffic.first?.isIncoming == false)
  }

  @Test func entriesCarryTheDeviceFieldsIntoJSON() throws {
    var harness = Harness()
    let failed = TrafficDetails(
      device: "desk/phone", peer: "desk/watch", delivery: .failed, transfer: "desk/phone#message-9")
    harness.records(
      [record(1, "tap", bytes: 2, transiting: "session-message", details: failed, outcome: .failed)],
      at: 1_000)
    let entry = try #require(harness.traffic.first)
    #expect(entry.delivery == .failed && entry.device == "desk/phone" && entry.peer == "desk/watch")
    #expect(
      entry.jsonLine.hasSuffix(
        #","error":"the counterpart device is not reachable (WCErrorCodeNotReachable 7007)","device":"desk/phone","peer":"desk/watch","delivery":"failed","transfer":"desk/phone#message-9"}"#
      ))
  }
}
