import MailboxModel
import Testing
import WormholeVocabulary

private let watch: FileName = "/w/pairs/desk/watch/AppGroup/g"
private let phone: FileName = "/w/pairs/desk/phone/AppGroup/g"

private func record(_ sequence: UInt64, _ identifier: String, at milliseconds: Int64) -> TrafficRecord {
  TrafficRecord(
    sequence: sequence, milliseconds: milliseconds, processIdentifier: 42, sender: "app", transiting: "file",
    kind: .notify, identifier: identifier, bytes: 0, outcome: .ok)
}

/// The history read at start from several journals is one list in time order.
@Suite struct InitialTrafficOrderTests {
  @Test func journalsReadAtStartAreMergedByTime() {
    var state = ModelState()
    _ = state.apply(.directoryAppeared(watch), at: 0)
    _ = state.apply(.directoryAppeared(phone), at: 0)
    _ = state.apply(
      .journalRecords(
        directory: watch, [record(1, "w1", at: 110), record(2, "w2", at: 140), record(3, "w3", at: 300)],
        initial: true), at: 1_000)
    _ = state.apply(
      .journalRecords(
        directory: phone,
        [
          record(1, "p1", at: 100), record(2, "p2", at: 120), record(3, "p3", at: 400),
          record(4, "p4", at: 130),
        ],
        initial: true), at: 1_001)
    #expect(state.traffic.map(\.identifier) == ["p1", "w1", "p2", "p4", "w2", "w3", "p3"])
    // Identifiers still find their entries.
    #expect(state.traffic.allSatisfy { state.trafficEntry($0.id)?.identifier == $0.identifier })
  }

  @Test func liveRecordsAfterStartKeepTheirArrivalOrder() {
    var state = ModelState()
    _ = state.apply(.directoryAppeared(watch), at: 0)
    _ = state.apply(
      .journalRecords(directory: watch, [record(1, "start", at: 500)], initial: true), at: 1_000)
    _ = state.apply(
      .journalRecords(directory: watch, [record(2, "claims-old", at: 10)], initial: false), at: 1_100)
    _ = state.apply(
      .journalRecords(directory: watch, [record(3, "next", at: 1_200)], initial: false), at: 1_200)
    #expect(state.traffic.map(\.identifier) == ["start", "claims-old", "next"])
  }

  @Test func largeInitialBatchesKeepTheCapacityAndTheNewest() {
    var configuration = ModelConfiguration()
    configuration.trafficCapacity = 100
    var state = ModelState(configuration: configuration)
    _ = state.apply(.directoryAppeared(watch), at: 0)
    _ = state.apply(.directoryAppeared(phone), at: 0)
    let even = (0..<200).map { (index: Int) -> TrafficRecord in
      record(UInt64(index + 1), "w\(index)", at: Int64(index) * 2)
    }
    let odd = (0..<200).map { (index: Int) -> TrafficRecord in
      record(UInt64(index + 1), "p\(index)", at: Int64(index) * 2 + 1)
    }
    _ = state.apply(.journalRecords(directory: watch, even, initial: true), at: 10_000)
    _ = state.apply(.journalRecords(directory: phone, odd, initial: true), at: 10_000)
    #expect(state.traffic.count <= 100 + 100 / 8)
    #expect(state.traffic.map(\.milliseconds) == state.traffic.map(\.milliseconds).sorted())
    #expect(state.traffic.last?.identifier == "p199")
    #expect(state.droppedTrafficCount == 400 - state.traffic.count)
  }
}
