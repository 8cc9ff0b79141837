import ArchivedValues
import FleetProtocol
import Testing

@Suite struct TrafficBacklogTests {
  private func line(_ index: Int, padding: Int = 0) -> String {
    "{\"id\":\(index),\"kind\":\"passed\",\"note\":\"\(String(repeating: "x", count: padding))\"}"
  }

  @Test func theBacklogTopicIsAMachinesOwn() {
    #expect(BridgeTopics.backlog(machine: "ci/3") == "wormhole/v1/machines/ci%2F3/backlog")
    #expect(BridgeTopics.kind(of: BridgeTopics.backlog(machine: "ci/3")) == .backlog(machine: "ci/3"))
    #expect(BridgeTopics.kind(of: "wormhole/v1/machines/m/backlog/more") == nil)
  }

  @Test func aBacklogKeepsTheNewestEntriesWithinItsCountAndItsBytes() throws {
    let many = (0..<(TrafficBacklog.entryLimit + 20)).map { line($0) }
    let counted = try TrafficBacklog.entries(in: TrafficBacklog.payload(many))
    #expect(counted.count == TrafficBacklog.entryLimit)
    #expect(counted.first?.first { $0.key == .string("id") }?.value == .integer(20))
    #expect(counted.last?.first { $0.key == .string("id") }?.value == .integer(Int64(many.count - 1)))

    // 1 KiB entries: fewer than 500 fit in 256 KiB; the newest are kept, oldest first.
    let large = (0..<400).map { line($0, padding: 1024) }
    let payload = TrafficBacklog.payload(large)
    #expect(payload.count <= TrafficBacklog.byteLimit)
    let kept = try TrafficBacklog.entries(in: payload)
    #expect(kept.count < 400 && kept.count > 200)
    #expect(kept.last?.first { $0.key == .string("id") }?.value == .integer(399))
    #expect(try TrafficBacklog.entries(in: TrafficBacklog.payload([])).isEmpty)
  }

  @Test func whatIsNotABacklogIsRefusedWithTheReason() {
    let cases: [(String, FleetProtocolError)] = [
      ("[]", .notAnObject),
      ("{\"entries\":[]}", .missingField("version")),
      ("{\"version\":2,\"entries\":[]}", .unsupportedVersion(found: "2")),
      ("{\"version\":1}", .missingField("entries")),
      ("{\"version\":1,\"entries\":{}}", .wrongType(field: "entries", expected: "an array")),
      ("{\"version\":1,\"entries\":[1]}", .wrongType(field: "entries", expected: "an array of objects")),
    ]
    for (text, expected) in cases {
      #expect(throws: expected, "\(text)") { try TrafficBacklog.entries(in: Array(text.utf8)) }
    }
    let tooMany =
      "{\"version\":1,\"entries\":[" + Array(repeating: "{}", count: 501).joined(separator: ",") + "]}"
    #expect(throws: FleetProtocolError.invalidField(field: "entries", reason: "501 entries, above 500")) {
      try TrafficBacklog.entries(in: Array(tooMany.utf8))
    }
    let huge = [UInt8](repeating: 0x20, count: TrafficBacklog.byteLimit + 1)
    #expect(
      throws: FleetProtocolError.payloadTooLarge(byteCount: huge.count, limit: TrafficBacklog.byteLimit)
    ) {
      try TrafficBacklog.entries(in: huge)
    }
  }
}
