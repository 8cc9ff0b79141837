import FleetModel
import Testing

@testable import DashboardRuntime

/// What the fleet's source holds between the client's thread and the next batch is bounded by
/// bytes: a publisher that floods 650 KB payloads faster than the batches are checked made the
/// dashboard grow to 1.7 GB (2,000 of them). Beyond the bound a message is dropped, counted
/// with the reason, and the bound frees again as batches are taken.
@Suite struct FleetPendingInputsTests {
  static let topic = "wormhole/v1/machines/m/traffic"
  /// What a message of `bytes` of payload counts against the bound.
  static func cost(_ bytes: Int) -> Int { bytes + topic.utf8.count + FleetPendingInputs.entryOverhead }

  static func input(_ bytes: Int) -> FleetInput {
    FleetInput(topic: topic, payload: Array(repeating: 0x61, count: bytes), isRetained: false)
  }

  @Test func aPayloadBeyondTheBoundIsDroppedWithTheReason() {
    var pending = FleetPendingInputs(byteLimit: Self.cost(600) + Self.cost(300))
    pending.append(Self.input(600), at: 1)
    pending.append(Self.input(600), at: 2)
    pending.append(Self.input(300), at: 3)
    let batch = pending.take()
    #expect(batch.count == 3)
    #expect(batch[0].input?.refusal == nil && batch[0].input?.payload.count == 600)
    #expect(
      batch[1].input?.payload.isEmpty == true && batch[1].input?.refusal?.contains("fell behind") == true,
      "\(batch[1].input?.refusal ?? "")")
    #expect(batch[1].input?.refusal?.contains("\(Self.cost(600)) bytes") == true)
    #expect(batch[2].input?.refusal == nil && batch[2].input?.payload.count == 300)
    #expect(pending.byteCount == 0)
  }

  @Test func takingABatchFreesTheBound() {
    var pending = FleetPendingInputs(byteLimit: Self.cost(900))
    pending.append(Self.input(900), at: 1)
    _ = pending.take()
    pending.append(Self.input(900), at: 2)
    #expect(pending.take().first?.input?.refusal == nil)
  }

  /// Topics count, and each message costs something: empty payloads under long topics (up to
  /// 64 KiB each) were held without bound.
  @Test func emptyPayloadsUnderLongTopicsAreBoundedToo() {
    var pending = FleetPendingInputs(byteLimit: 1 << 20)
    let topic = "wormhole/v1/machines/m/mailboxes/" + String(repeating: "t", count: 60_000)
    for time in 0..<100 {
      pending.append(FleetInput(topic: topic, payload: [], isRetained: true), at: Int64(time))
    }
    let batch = pending.take()
    let kept = batch.filter { $0.input?.refusal == nil }.count
    #expect(kept == (1 << 20) / (topic.utf8.count + FleetPendingInputs.entryOverhead))
    #expect(batch.count - kept == 100 - kept)
  }

  @Test func markersAndRefusalsAlwaysGoIn() {
    var pending = FleetPendingInputs(byteLimit: 10)
    pending.append(Self.input(10), at: 1)
    pending.append(.refused("too big"), at: 2)
    pending.append(marker: .reloadFinished)
    let batch = pending.take()
    #expect(batch.count == 3)
  }
}
