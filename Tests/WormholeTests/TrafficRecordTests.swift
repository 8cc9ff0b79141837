import Testing

@testable import Wormhole

@Suite struct TrafficRecordTests {
  @Test func recordsRoundTripThroughTheirJSONLine() throws {
    let record = TrafficRecord(
      sequence: 42, milliseconds: 1_764_420_069_123, processIdentifier: 77, sender: "app \"x\"",
      transiting: "coordinated-file", kind: .pass, identifier: "line\nbreak", bytes: 231, outcome: .failed,
      error: "disk full", replayOf: 7)
    let line = record.jsonLine
    #expect(!line.contains("\n"))
    #expect(line.hasPrefix(#"{"seq":42,"time":"2025-11-29T12:41:09.123Z","pid":77,"#))
    #expect(TrafficRecord(jsonLine: line) == record)
  }

  @Test func timestampsConvertBothWays() {
    for milliseconds: Int64 in [0, 1, 999, 86_399_999, 951_782_400_000, 1_764_420_069_123, 4_102_444_800_000]
    {
      let text = TrafficRecord.timestamp(milliseconds)
      #expect(TrafficRecord.milliseconds(fromTimestamp: text) == milliseconds, "\(text)")
    }
    #expect(TrafficRecord.timestamp(951_782_400_000) == "2000-02-29T00:00:00.000Z")
    #expect(TrafficRecord.milliseconds(fromTimestamp: "2000-13-01T00:00:00.000Z") == nil)
  }

  @Test func linesThatAreNotRecordsAreRejected() {
    #expect(TrafficRecord(jsonLine: "") == nil)
    #expect(TrafficRecord(jsonLine: "{\"seq\":1}") == nil)
    #expect(TrafficRecord(jsonLine: "{\"seq\":-1,\"time\":\"2000-02-29T00:00:00.000Z\"}") == nil)
  }
}
