import FleetProtocol
import Testing
import WormholeVocabulary

/// Requests that name a key twice are refused (redteam3 L6), and a clear-all travels as one
/// request without an identifier.
@Suite struct DuplicateKeyAndClearAllTests {
  static let replyTo = "wormhole/v1/clients/c1/replies"

  static func error(_ text: String) -> FleetProtocolError? {
    do throws(FleetProtocolError) {
      _ = try RemoteRequest(payload: Array(text.utf8))
      return nil
    } catch {
      return error
    }
  }

  @Test func aRequestNamingAKeyTwiceIsRefusedWithTheReasonYetAnswered() {
    let twice =
      "{\"version\":1,\"id\":\"d1\",\"op\":\"clear\",\"directory\":\"/etc\",\"directory\":\"/d\","
      + "\"identifier\":\"x\",\"reply_to\":\"\(Self.replyTo)\"}"
    guard case .notJSON(let reason)? = Self.error(twice) else {
      Issue.record("a request with directory twice was read: \(String(describing: Self.error(twice)))")
      return
    }
    #expect(reason.contains("the key \"directory\" appears twice"), "\(reason)")
    // At any depth, in a field the bridge does not even read.
    let nested =
      "{\"version\":1,\"id\":\"d2\",\"op\":\"clear\",\"directory\":\"/d\",\"identifier\":\"x\","
      + "\"later\":{\"a\":1,\"a\":2},\"reply_to\":\"\(Self.replyTo)\"}"
    #expect(Self.error(nested) != nil)
    // The refusal still reaches the client.
    let route = RemoteRequest.replyRoute(of: Array(twice.utf8))
    #expect(route?.id == "d1" && route?.replyTo == Self.replyTo)
    // Bridge infos and replies too.
    #expect(
      throws: FleetProtocolError.self,
      performing: {
        try BridgeInfo(payload: Array("{\"version\":1,\"remote_writes\":false,\"remote_writes\":true}".utf8))
      })
    #expect(
      throws: FleetProtocolError.self,
      performing: {
        try RemoteReply(
          payload: Array("{\"version\":1,\"id\":\"a\",\"ok\":false,\"ok\":true,\"error\":null}".utf8))
      })
    // The same request once each is read.
    let once =
      "{\"version\":1,\"id\":\"d1\",\"op\":\"clear\",\"directory\":\"/d\",\"identifier\":\"x\",\"reply_to\":\"\(Self.replyTo)\"}"
    #expect(Self.error(once) == nil)
  }

  @Test func aClearAllTravelsWithoutAnIdentifier() throws {
    let request = RemoteRequest(
      id: "all-1", operation: .clearAll, directory: "/d", identifier: nil, replyTo: Self.replyTo)
    #expect(String(decoding: request.payload, as: UTF8.self).contains("\"op\":\"clear-all\""))
    #expect(try RemoteRequest(payload: request.payload) == request)
    let base = "\"version\":1,\"id\":\"a\",\"directory\":\"/d\",\"reply_to\":\"\(Self.replyTo)\""
    #expect(Self.error("{\(base),\"op\":\"clear-all\"}") == nil)
    #expect(
      Self.error("{\(base),\"op\":\"clear-all\",\"identifier\":\"x\"}")
        == .invalidField(field: "identifier", reason: "a clear-all names no identifier (it clears them all)"))
    #expect(
      Self.error("{\(base),\"op\":\"clear-all\",\"archive_base64\":\"AAEC\"}")
        == .invalidField(field: "archive_base64", reason: "a clear carries no archive"))
    #expect(Self.error("{\(base),\"op\":\"clear\"}") == .missingField("identifier"))
    var named = request
    named.identifier = "x"
    #expect(throws: FleetProtocolError.self, performing: { try named.validate() })
    var unnamed = request
    unnamed.operation = .pass
    #expect(throws: FleetProtocolError.missingField("identifier"), performing: { try unnamed.validate() })
  }
}
