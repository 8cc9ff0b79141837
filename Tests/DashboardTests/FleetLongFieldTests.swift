import FleetModel
import Testing
import WormholeVocabulary

/// Texts from the broker that reach the screen but no byte budget (a traffic entry's sender,
/// error, device…; a mailbox's last writer, error, archive note) are cut to
/// ``FleetState/textByteLimit`` bytes: the fleet keeps 10,000 traffic entries and 64 versions
/// of up to 100,000 mailboxes, so a publisher sending 1 MiB senders would make them gigabytes.
@Suite struct FleetLongFieldTests {
  static let long = "s" + String(repeating: "\u{E9}", count: 50_000) + "end"

  static func isCut(_ text: String?) -> Bool {
    guard let text else { return false }
    return text.utf8.count <= FleetState.textByteLimit + "…".utf8.count && text.hasPrefix("s\u{E9}")
      && text.hasSuffix("…")
  }

  @Test func aTrafficEntrysTextsAreCut() {
    var input = Bridged.traffic("m", "/d", "x")
    var text = String(decoding: input.payload, as: UTF8.self)
    for field in ["sender", "error", "device", "peer", "transfer"] {
      text = text.replacingOccurrences(of: "\"\(field)\":null", with: "\"\(field)\":\"\(Self.long)\"")
    }
    text = text.replacingOccurrences(of: "\"sender\":\"app\"", with: "\"sender\":\"\(Self.long)\"")
    input.payload = Array(text.utf8)
    guard case .traffic(_, let entry) = FleetMessage(input, at: 1) else {
      Issue.record("not a traffic entry")
      return
    }
    #expect(Self.isCut(entry.sender), "\(entry.sender?.utf8.count ?? -1)")
    #expect(Self.isCut(entry.error))
    #expect(Self.isCut(entry.details.device))
    #expect(Self.isCut(entry.details.peer))
    #expect(Self.isCut(entry.details.transfer))
  }

  @Test func aMailboxsTextsAreCut() {
    var input = Bridged.mailbox("m", "/d", "x", .string("v"), sender: Self.long)
    input.payload = Array(
      String(decoding: input.payload, as: UTF8.self).replacingOccurrences(
        of: "\"archive_note\":null", with: "\"archive_note\":\"\(Self.long)\""
      ).replacingOccurrences(
        of: "\"summary\":\"", with: "\"summary\":\"e" + String(repeating: "\u{301}", count: 100_000)
      ).utf8)
    guard case .mailbox(_, _, _, let payload?) = FleetMessage(input, at: 1) else {
      Issue.record("not a mailbox")
      return
    }
    #expect(Self.isCut(payload.sender), "\(payload.sender?.utf8.count ?? -1)")
    #expect(Self.isCut(payload.archiveNote))
    // One character of 100,000 combining marks: one column, but 200 KB.
    #expect(
      (payload.summary?.utf8.count ?? 0) <= 8 * FleetState.textByteLimit,
      "\(payload.summary?.utf8.count ?? -1)")
  }

  @Test func aShortTextIsKeptWhole() {
    guard case .traffic(_, let entry) = FleetMessage(Bridged.traffic("m", "/d", "x"), at: 1) else {
      Issue.record("not a traffic entry")
      return
    }
    #expect(entry.sender == "app")
  }
}
