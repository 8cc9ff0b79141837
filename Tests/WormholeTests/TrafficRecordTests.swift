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

@Suite struct StoredTrafficRecordTests {
  @Test func unknownFieldsAndKindsAreKeptAsStored() throws {
    let line =
      #"{"seq":3,"time":"2026-11-29T12:41:09.123Z","pid":4,"sender":"s","transiting":"session-file","kind":"deliver","identifier":"a","bytes":5,"outcome":"queued","device":"watch","transfer":{"id":7}}"#
    let record = try #require(TrafficRecord(jsonLine: line))
    #expect(record.jsonLine == line)
    #expect(record.storedLine == Array(line.utf8))
    #expect(record.kind.rawValue == "deliver" && record.outcome.rawValue == "queued")
    #expect(record.storedField("device") == .string("watch"))
    #expect(record.device == "watch")
    // A known field of another type than this build writes is not taken, but kept as stored.
    #expect(record.transfer == nil && record.storedField("transfer") != nil)
    var changed = record
    changed.identifier = "b"
    #expect(changed.storedLine == nil && changed.jsonLine.contains(#""device":"watch""#))
    #expect(!changed.jsonLine.contains("transfer"))
  }

  @Test func deviceFieldsRoundTripAndOldRecordsReadWithoutThem() throws {
    let record = TrafficRecord(
      sequence: 9, milliseconds: 1_764_420_069_123, processIdentifier: 5, sender: "device",
      transiting: "session-message", kind: .pass, identifier: "ping", bytes: 12, outcome: .failed,
      error: "not reachable (WCErrorCodeNotReachable 7007)",
      details: TrafficDetails(device: "desk/phone", peer: "desk/watch", delivery: .failed, transfer: "17"))
    let line = record.jsonLine
    #expect(
      line.hasSuffix(#","device":"desk/phone","peer":"desk/watch","delivery":"failed","transfer":"17"}"#))
    let read = try #require(TrafficRecord(jsonLine: line))
    #expect(read == record && read.details == record.details)
    let old =
      #"{"seq":1,"time":"2026-11-29T12:41:09.123Z","pid":4,"sender":"s","transiting":"file","kind":"pass","identifier":"a","bytes":5,"outcome":"ok"}"#
    let oldRecord = try #require(TrafficRecord(jsonLine: old))
    #expect(oldRecord.details.isEmpty && oldRecord.details == TrafficDetails())
    let unknownState = try #require(
      TrafficRecord(jsonLine: old.replacingOccurrences(of: "}", with: #","delivery":"bounced"}"#)))
    #expect(unknownState.delivery?.rawValue == "bounced")
  }

  @Test func datesAreValidatedStrictly() {
    #expect(TrafficRecord.milliseconds(fromTimestamp: "2026-02-31T00:00:00.000Z") == nil)
    #expect(TrafficRecord.milliseconds(fromTimestamp: "2023-02-29T00:00:00.000Z") == nil)
    #expect(TrafficRecord.milliseconds(fromTimestamp: "2024-02-29T00:00:00.000Z") != nil)
    #expect(TrafficRecord.milliseconds(fromTimestamp: "2026-04-31T00:00:00.000Z") == nil)
    #expect(TrafficRecord.milliseconds(fromTimestamp: "9999-12-31T23:59:60.999Z") == nil)
    let last = TrafficRecord.milliseconds(fromTimestamp: "9999-12-31T23:59:59.999Z")
    #expect(last.map(TrafficRecord.timestamp) == "9999-12-31T23:59:59.999Z")
  }

  @Test(arguments: ["2147483648", "4294967297", "-1"]) func aProcessIdentifierOutOfRangeIsNotARecord(
    pid: String
  ) {
    let line =
      #"{"seq":3,"time":"2026-11-29T12:41:09.123Z","pid":\#(pid),"sender":"s","transiting":"file","kind":"notify","identifier":"a","bytes":0,"outcome":"ok"}"#
    #expect(TrafficRecord(jsonLine: line) == nil)
  }

  @Test(arguments: ["9007199254740993", "9223372036854775807", "18446744073709551615"])
  func aSequenceNumberPastTheMaximumIsNotARecord(sequence: String) {
    let line =
      #"{"seq":\#(sequence),"time":"2026-11-29T12:41:09.123Z","pid":1,"sender":"s","transiting":"file","kind":"notify","identifier":"a","bytes":0,"outcome":"ok"}"#
    #expect(TrafficRecord(jsonLine: line) == nil)
  }
}
