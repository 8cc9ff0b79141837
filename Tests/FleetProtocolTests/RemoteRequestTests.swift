import FleetProtocol
import Testing
import WormholeVocabulary

@Suite struct RemoteRequestTests {
  static let replyTo = "wormhole/v1/clients/c1/replies"

  static func payload(_ fields: String) -> [UInt8] { Array("{\"version\":1,\(fields)}".utf8) }

  static func error(_ payload: [UInt8]) -> FleetProtocolError? {
    do throws(FleetProtocolError) {
      _ = try RemoteRequest(payload: payload)
      return nil
    } catch {
      return error
    }
  }

  @Test func everyOperationTravelsBothWaysUnchanged() throws {
    let requests = [
      RemoteRequest(
        id: "r-1", operation: .pass, directory: "/tmp/c/x", identifier: "score", archive: [0, 1, 2, 255],
        transiting: .coordinatedFile, replyTo: Self.replyTo),
      RemoteRequest(id: "r-2", operation: .pass, directory: "/d", identifier: "bell", replyTo: Self.replyTo),
      RemoteRequest(
        id: "r-3", operation: .clear, directory: "/d", identifier: "score", replyTo: Self.replyTo),
      RemoteRequest(
        id: "r:4", operation: .replay, directory: FileName(bytes: [0x2F, 0xFF, 0x41]),
        identifier: FileName(bytes: [0x61, 0xFE]), archive: Array(repeating: 7, count: 1000), replayOf: 42,
        transiting: .file, replyTo: Self.replyTo),
    ]
    for request in requests {
      #expect(try RemoteRequest(payload: request.payload) == request)
    }
  }

  @Test func theDocumentedPayloadIsRead() throws {
    let request = try RemoteRequest(
      payload: Self.payload(
        """
        "id":"a1","op":"replay","directory":"/tmp/g","identifier":"x","archive_base64":"AAEC",\
        "replay_of":7,"transiting":"file","reply_to":"wormhole/v1/clients/c1/replies","later":{"a":1}
        """))
    #expect(request.operation == .replay)
    #expect(request.directory == "/tmp/g")
    #expect(request.archive == [0, 1, 2])
    #expect(request.replayOf == 7)
    #expect(request.transiting == .file)
  }

  @Test func whatIsMalformedIsRefusedWithATypedError() {
    let base = "\"id\":\"a\",\"directory\":\"/d\",\"identifier\":\"x\",\"reply_to\":\"\(Self.replyTo)\""
    let cases: [(String, FleetProtocolError)] = [
      ("\"op\":\"rm\",\(base)", .unknownOperation("rm")),
      (
        "\"op\":\"pass\",\"id\":\"a\",\"identifier\":\"x\",\"reply_to\":\"\(Self.replyTo)\"",
        .missingField("directory")
      ),
      ("\"op\":\"replay\",\(base)", .missingField("archive_base64")),
      ("\"op\":\"pass\",\(base),\"archive_base64\":\"AA=A\"", .badBase64(field: "archive_base64")),
      (
        "\"op\":\"pass\",\(base),\"archive_base64\":12",
        .wrongType(field: "archive_base64", expected: "a string")
      ),
      (
        "\"op\":\"pass\",\"id\":\"a\",\"directory\":\"/d\",\"identifier\":\"x\",\"reply_to\":\"wormhole/v1/machines/m/presence\"",
        .replyTopicOutsideClients("wormhole/v1/machines/m/presence")
      ),
      (
        "\"op\":\"pass\",\"id\":\"a\",\"directory\":\"/d\",\"identifier\":\"../x\",\"reply_to\":\"\(Self.replyTo)\"",
        .invalidField(field: "identifier", reason: "it contains '/'")
      ),
      (
        "\"op\":\"pass\",\"id\":\"a\",\"directory\":\"d\",\"identifier\":\"x\",\"reply_to\":\"\(Self.replyTo)\"",
        .invalidField(field: "directory", reason: "it must be an absolute path")
      ),
      (
        "\"op\":\"clear\",\(base),\"archive_base64\":\"AAEC\"",
        .invalidField(field: "archive_base64", reason: "a clear carries no archive")
      ),
      (
        "\"op\":\"pass\",\(base),\"replay_of\":-1",
        .wrongType(field: "replay_of", expected: "a non-negative integer")
      ),
      (
        "\"op\":\"pass\",\(base),\"transiting\":\"session-message\"",
        .invalidField(
          field: "transiting",
          reason: "session-message needs a pair; a bridge writes file or coordinated-file")
      ),
    ]
    for (fields, expected) in cases {
      #expect(Self.error(Self.payload(fields)) == expected, "\(fields)")
    }
    #expect(Self.error(Array("[1]".utf8)) == .notAnObject)
    #expect(Self.error(Array("{\"version\":2}".utf8)) == .unsupportedVersion(found: "2"))
    #expect(Self.error(Array("{\"op\":\"pass\"}".utf8)) == .missingField("version"))
    if case .notJSON? = Self.error(Array("{\"version\":1,".utf8)) {
    } else {
      Issue.record("truncated JSON accepted")
    }
    if case .invalidField(field: "id", _)? = Self.error(
      Self.payload("\"op\":\"pass\",\"id\":\"a b\",\(base.dropFirst(9))"))
    {
    } else {
      Issue.record("an id with a space accepted")
    }
  }

  @Test func anOversizedPayloadIsRefusedBeforeItIsParsed() {
    let huge = [UInt8](repeating: UInt8(ascii: " "), count: RemoteRequest.maximumPayloadByteCount + 1)
    #expect(
      Self.error(huge)
        == .payloadTooLarge(byteCount: huge.count, limit: RemoteRequest.maximumPayloadByteCount))
    let archive = [UInt8](repeating: 1, count: RemoteRequest.maximumArchiveByteCount + 1)
    let request = RemoteRequest(
      id: "big", operation: .pass, directory: "/d", identifier: "x", archive: archive, replyTo: Self.replyTo)
    if case .invalidField(field: "archive_base64", _)? = Self.error(request.payload) {
    } else {
      Issue.record("an archive above the limit accepted")
    }
  }

  @Test func errorMessagesQuoteHostileTextEscapedAndShort() {
    let hostile = "\u{1B}]52;c;" + String(repeating: "x", count: 500)
    let message = FleetProtocolError.unknownOperation(hostile).description
    #expect(!message.unicodeScalars.contains("\u{1B}"))
    // The excerpt (64 characters) and the list of operations.
    #expect(message.count < 140)
  }
}

@Suite struct ReplyRouteTests {
  @Test func aRefusedRequestIsAnsweredOnlyOnAClientsReplyTopic() {
    let unknown = Array(
      "{\"version\":1,\"id\":\"r1\",\"op\":\"rm\",\"reply_to\":\"wormhole/v1/clients/c/replies\"}".utf8)
    let route = RemoteRequest.replyRoute(of: unknown)
    #expect(route?.id == "r1")
    #expect(route?.replyTo == "wormhole/v1/clients/c/replies")
    let badID = Array("{\"version\":9,\"id\":\"a b\",\"reply_to\":\"wormhole/v1/clients/c/replies\"}".utf8)
    #expect(RemoteRequest.replyRoute(of: badID)?.id == nil)
    #expect(RemoteRequest.replyRoute(of: badID)?.replyTo == "wormhole/v1/clients/c/replies")
    let elsewhere = Array(
      "{\"version\":1,\"id\":\"r1\",\"reply_to\":\"wormhole/v1/machines/m/presence\"}".utf8)
    #expect(RemoteRequest.replyRoute(of: elsewhere) == nil)
    #expect(RemoteRequest.replyRoute(of: Array("not json".utf8)) == nil)
  }
}
