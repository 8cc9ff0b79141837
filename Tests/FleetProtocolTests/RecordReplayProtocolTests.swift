import FleetProtocol
import Testing
import WormholeVocabulary

/// The record replay (`"op":"replay-record"`): a request that names a journal record and no
/// archive, and the reply that says which version the bridge wrote again from its history.
@Suite struct RecordReplayProtocolTests {
  static let replyTo = DuplicateKeyAndClearAllTests.replyTo

  static func error(_ text: String) -> FleetProtocolError? { DuplicateKeyAndClearAllTests.error(text) }

  @Test func aRecordReplayNamesItsRecordAndCarriesNoArchive() throws {
    let request = RemoteRequest(
      id: "rr-1", operation: .replayRecord, directory: "/d", identifier: "score", replayOf: 12,
      replyTo: Self.replyTo)
    let text = String(decoding: request.payload, as: UTF8.self)
    #expect(text.contains("\"op\":\"replay-record\""), "\(text)")
    #expect(text.contains("\"replay_of\":12") && text.contains("\"archive_base64\":null"), "\(text)")
    #expect(try RemoteRequest(payload: request.payload) == request)
    let base =
      "\"version\":1,\"id\":\"a\",\"op\":\"replay-record\",\"directory\":\"/d\",\"identifier\":\"x\",\"reply_to\":\"\(Self.replyTo)\""
    #expect(Self.error("{\(base),\"replay_of\":3}") == nil)
    #expect(Self.error("{\(base)}") == .missingField("replay_of"))
    #expect(Self.error("{\(base),\"replay_of\":null}") == .missingField("replay_of"))
    guard
      case .invalidField(let field, _)? = Self.error("{\(base),\"replay_of\":3,\"archive_base64\":\"AA==\"}")
    else {
      Issue.record("a record replay with an archive was read")
      return
    }
    #expect(field == "archive_base64")
    // It names the mailbox the record wrote: an identifier is required, as for a replay.
    let noIdentifier =
      "{\"version\":1,\"id\":\"a\",\"op\":\"replay-record\",\"directory\":\"/d\",\"replay_of\":3,\"reply_to\":\"\(Self.replyTo)\"}"
    #expect(Self.error(noIdentifier) == .missingField("identifier"))
    // An older client's op list is what the error names now.
    #expect(FleetProtocolError.unknownOperation("rm").description.contains("replay-record"))
  }

  @Test func theReplyOfARecordReplaySaysWhatWasReplayed() throws {
    let replayed = RemoteReply.ReplayedVersion(
      record: 9, byteCount: 42, modifiedMilliseconds: 1_764_614_645_123)
    let reply = RemoteReply.applied(id: "rr-1", sequence: 20, replayed: replayed)
    let text = String(decoding: reply.payload, as: UTF8.self)
    #expect(
      text
        == "{\"version\":1,\"id\":\"rr-1\",\"ok\":true,\"error\":null,\"seq\":20,\"replayed\":{\"record\":9,\"bytes\":42,\"modified_ms\":1764614645123}}"
    )
    #expect(try RemoteReply(payload: reply.payload) == reply)
    // Other replies are unchanged (no "replayed"), and an older bridge's reply is read.
    let plain = RemoteReply.applied(id: "p", sequence: 3)
    #expect(!String(decoding: plain.payload, as: UTF8.self).contains("replayed"))
    #expect(try RemoteReply(payload: plain.payload).replayed == nil)
    // Checked as hostile input: on a refusal, not an object, a negative size, a missing time.
    let refusedWithVersion =
      "{\"version\":1,\"id\":\"a\",\"ok\":false,\"error\":\"no\",\"seq\":null,\"replayed\":{\"record\":1,\"bytes\":1,\"modified_ms\":1}}"
    let bad = [
      refusedWithVersion,
      "{\"version\":1,\"id\":\"a\",\"ok\":true,\"error\":null,\"seq\":1,\"replayed\":7}",
      "{\"version\":1,\"id\":\"a\",\"ok\":true,\"error\":null,\"seq\":1,\"replayed\":{\"record\":1,\"bytes\":-1,\"modified_ms\":1}}",
      "{\"version\":1,\"id\":\"a\",\"ok\":true,\"error\":null,\"seq\":1,\"replayed\":{\"record\":1,\"bytes\":1}}",
      "{\"version\":1,\"id\":\"a\",\"ok\":true,\"error\":null,\"seq\":1,\"replayed\":{\"record\":1,\"record\":2,\"bytes\":1,\"modified_ms\":1}}",
    ]
    for payload in bad {
      #expect(throws: FleetProtocolError.self, "\(payload)") { try RemoteReply(payload: Array(payload.utf8)) }
    }
  }

  /// A version whose file time is before 1970 (`touch -d @-5`) is replayed like any other: its
  /// reply was refused by the reader, so the dashboard said "no reply" and a retry replayed twice.
  @Test func aReplayOfAVersionFromBefore1970IsAnsweredAndRead() throws {
    let replayed = RemoteReply.ReplayedVersion(record: 3, byteCount: 10, modifiedMilliseconds: -5_000)
    let reply = RemoteReply.applied(id: "rr-2", sequence: 4, replayed: replayed)
    #expect(try RemoteReply(payload: reply.payload).replayed?.modifiedMilliseconds == -5_000)
    let beyond =
      "{\"version\":1,\"id\":\"a\",\"ok\":true,\"error\":null,\"seq\":1,\"replayed\":{\"record\":1,\"bytes\":1,\"modified_ms\":-9223372036854775807}}"
    #expect(throws: FleetProtocolError.self) { try RemoteReply(payload: Array(beyond.utf8)) }
  }
}
