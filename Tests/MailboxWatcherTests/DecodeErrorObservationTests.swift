import KeyedArchive
import MailboxModel
import Testing
import WormholeVocabulary

@testable import MailboxWatcher

/// Whoever reads a mailbox summarizes it and says why its message did not decode, with the
/// summary (``MailboxModel/DecodedMessage/decodeError``), so that `dump` and the bridge can say it
/// without decoding again; the reducer keeps it with the version.
@Suite struct DecodeErrorObservationTests {
  private func decodeError(_ text: String) -> String? {
    let bytes = Array(text.utf8)
    guard
      case .file(_, _, _, _, _, let reason) = MailboxObservation.summarized(
        bytes: bytes, size: bytes.count, modifiedNanoseconds: 0)
    else { return "not a file" }
    return reason
  }

  @Test func aDamagedArchiveAndUndecodableBytesSayWhyAndAValueDoesNot() throws {
    let good = try KeyedArchiveEncoder().encodeBytes(.string("hi"))
    guard
      case .file(_, _, _, _, _, let none) = MailboxObservation.summarized(
        bytes: good, size: good.count, modifiedNanoseconds: 0)
    else { return }
    #expect(none == nil)
    #expect(
      decodeError(#"<plist version="1.0"><dict><key>a</key><integer>1</integer></dict></plist>"#) == nil)
    #expect(
      decodeError(
        #"<plist version="1.0"><dict><key>$archiver</key><string>NSKeyedArchiver</string></dict></plist>"#)
        == "not a keyed archive: there is no $objects key")
    #expect(
      decodeError("garbage!") == "not a property list: it starts with 67 61 72 62 61 67 65 21, "
        + "neither a binary property list (bplist00) nor XML")
    // Bytes that were not kept are not decoded, so there is nothing to say.
    #expect(DecodedMessage(decoding: nil, size: 10).decodeError == nil)
  }

  @Test func aLongReasonIsCutSoThatAFileCannotMakeEveryCopyLarge() throws {
    let name = String(repeating: "x", count: 5_000)
    let reason = try #require(decodeError("<plist version=\"1.0\"><\(name)/></plist>"))
    #expect(reason.unicodeScalars.count == DecodedMessage.reasonScalars, "\(reason.unicodeScalars.count)")
    #expect(reason.hasSuffix("…") && reason.contains("unknown element <xxx"), "\(reason.prefix(80))")
  }

  @Test func theReducerKeepsItWithTheVersion() throws {
    var state = ModelState()
    let directory: FileName = "/d"
    _ = state.apply(.directoryAppeared(directory), at: 1)
    _ = state.apply(
      .mailboxChanged(
        directory: directory, identifier: "m",
        .file(bytes: [1], size: 1, modifiedNanoseconds: 0, summary: "(undecodable: why)", decodeError: "why")),
      at: 2)
    let mailbox = try #require(state.directories[directory]?.mailboxes["m"])
    #expect(mailbox.current?.decodeError == "why")
    #expect(
      mailbox.error == nil && mailbox.countsAsPresent, "a message that was read, not an unreadable file")
    #expect(state.mailboxJSON(mailbox, width: 200).hasSuffix(#","error":null,"decode_error":"why"}"#))
  }
}
