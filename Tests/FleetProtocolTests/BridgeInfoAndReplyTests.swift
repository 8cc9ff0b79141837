import FleetProtocol
import Testing

@Suite struct BridgeInfoAndReplyTests {
  @Test func bridgeInfoTravelsBothWaysAndSaysWhyWritesAreOff() throws {
    let readOnly = BridgeInfo(
      allowsRemoteWrites: false, reason: "bridge started without --allow-remote-writes")
    #expect(
      String(decoding: readOnly.payload, as: UTF8.self)
        == "{\"version\":1,\"remote_writes\":false,\"reason\":\"bridge started without --allow-remote-writes\"}"
    )
    #expect(try BridgeInfo(payload: readOnly.payload) == readOnly)
    let writable = BridgeInfo(allowsRemoteWrites: true)
    #expect(try BridgeInfo(payload: writable.payload) == writable)
    #expect(throws: FleetProtocolError.self) {
      try BridgeInfo(payload: Array("{\"version\":1,\"remote_writes\":false,\"reason\":null}".utf8))
    }
    #expect(throws: FleetProtocolError.wrongType(field: "remote_writes", expected: "true or false")) {
      try BridgeInfo(payload: Array("{\"version\":1,\"remote_writes\":\"yes\"}".utf8))
    }
  }

  @Test func repliesTravelBothWaysAndAreChecked() throws {
    let applied = RemoteReply.applied(id: "r1", sequence: 12)
    #expect(
      String(decoding: applied.payload, as: UTF8.self)
        == "{\"version\":1,\"id\":\"r1\",\"ok\":true,\"error\":null,\"seq\":12}")
    #expect(try RemoteReply(payload: applied.payload) == applied)
    let refused = RemoteReply.refused(id: nil, reason: String(repeating: "é", count: 5000))
    #expect(refused.error.map { $0.utf8.count <= RemoteReply.maximumErrorByteCount } == true)
    #expect(try RemoteReply(payload: refused.payload) == refused)
    #expect(
      throws: FleetProtocolError.invalidField(field: "error", reason: "it must say why when ok is false")
    ) {
      try RemoteReply(payload: Array("{\"version\":1,\"id\":\"a\",\"ok\":false}".utf8))
    }
    #expect(
      throws: FleetProtocolError.invalidField(field: "error", reason: "it must be null when ok is true")
    ) {
      try RemoteReply(payload: Array("{\"version\":1,\"id\":\"a\",\"ok\":true,\"error\":\"x\"}".utf8))
    }
  }
}

/// A reply's `modified_ms` beyond a version's modification time (a forged reply) is refused:
/// `Int64.max` trapped the dashboard's status line. Before 1970 is a time a file can have.
@Suite struct ReplyModificationTimeTests {
  @Test(arguments: [Int64.max, Int64.min, 9_223_372_036_855, -9_223_372_036_855])
  func aModificationTimeNoVersionCanHaveIsRefused(_ milliseconds: Int64) {
    let payload =
      #"{"version":1,"id":"r","ok":true,"error":null,"seq":3,"replayed":{"record":1,"bytes":2,"modified_ms":"#
      + "\(milliseconds)}}"
    #expect(throws: FleetProtocolError.self) { try RemoteReply(payload: Array(payload.utf8)) }
  }

  @Test func aVersionsModificationTimeIsRead() throws {
    let payload =
      #"{"version":1,"id":"r","ok":true,"error":null,"seq":3,"replayed":{"record":1,"bytes":2,"modified_ms":9223372036854}}"#
    #expect(try RemoteReply(payload: Array(payload.utf8)).replayed?.modifiedMilliseconds == 9_223_372_036_854)
  }
}
