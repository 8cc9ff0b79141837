import Foundation
import MailboxModel
import Testing
import WormholeVocabulary

@testable import wormhole_tui

/// A bridge's mailbox payload says why its message did not decode (`decode_error`, JSON-escaped),
/// and `dump --broker` prints it after the summary, escaped, as `dump` prints a local one; the
/// mailbox's `error` (the file could not be read) stays null, so the fleet still takes the version.
@Suite struct BridgeDecodeErrorTests {
  static let reason = "malformed XML property list at line 1: \"\u{1B}]0;owned\u{07}\" is not a real number"

  @Test func thePayloadCarriesTheReasonEscaped() throws {
    var state = ModelState()
    let directory: FileName = "/machine/group"
    _ = state.apply(.directoryAppeared(directory), at: 1)
    _ = state.apply(
      .mailboxChanged(
        directory: directory, identifier: "m",
        .file(
          bytes: [1, 2], size: 2, modifiedNanoseconds: 0, summary: "(undecodable)", decodeError: Self.reason)),
      at: 2)
    let mailbox = try #require(state.directories[directory]?.mailboxes["m"])
    let payload = BridgePublisher.payload(mailbox, directory: directory, in: state)
    #expect(!payload.contains(0x1B) && !payload.contains(0x07), "nothing a terminal acts on, raw")
    let document = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    let fields = try #require(document["mailbox"] as? [String: Any])
    #expect(fields["decode_error"] as? String == Self.reason)
    #expect(fields["error"] is NSNull)
    #expect(fields["summary"] as? String == "(undecodable)")
  }

  @Test func dumpBrokerPrintsTheReasonEscaped() throws {
    let reason = try #require(
      String(data: try JSONSerialization.data(withJSONObject: [Self.reason]), encoding: .utf8))
    let row = FleetDump.row(
      "b",
      payload:
        #"{"mailbox":{"bytes":7,"versions":1,"summary":"(damaged archive) {}","last_writer":"app","error":null,"decode_error":"#
        + reason.dropFirst().dropLast() + "}}")
    #expect(row.hasPrefix("b 7B v1 - app (damaged archive) {} decode error: "), "\(row)")
    #expect(row.hasSuffix("\\u{1b}]0;owned\\u{7}\" is not a real number"), "\(row)")
    #expect(!row.unicodeScalars.contains { $0.value < 0x20 }, "\(row)")
    // No reason, no column.
    let plain = FleetDump.row(
      "b",
      payload: #"{"mailbox":{"bytes":7,"versions":1,"summary":"s","last_writer":"app","decode_error":null}}"#)
    #expect(plain == "b 7B v1 - app s", "\(plain)")
  }
}
