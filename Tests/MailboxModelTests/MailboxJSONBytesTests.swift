import TerminalScreen
import Testing
import WormholeVocabulary

@testable import MailboxModel

/// A mailbox's JSON is built as bytes (``ModelState/appendMailboxJSON(_:width:to:)``, for the
/// bridge): the very bytes the `String`-built rendering it replaced wrote, kept here as the
/// reference, for names that are not text, escapes, missing values, extreme times and numbers.
struct MailboxJSONBytesTests {
  /// The rendering as it was built before, from strings.
  private func reference(_ mailbox: Mailbox, width: Int) -> String {
    func number<N: BinaryInteger>(_ value: N?) -> String { value.map { String($0) } ?? "null" }
    var out = "{\"identifier\":\(JSONText.name(mailbox.identifier))"
    out += ",\"identifier_bytes\":\(JSONText.nameBytes(mailbox.identifier)),\"present\":\(mailbox.isOnDisk)"
    let current = mailbox.current
    out += ",\"bytes\":\(number(current?.size))"
    out +=
      ",\"modified\":\(JSONText.string(orNull: current.map { TrafficRecord.timestamp($0.modifiedNanoseconds / 1_000_000) }))"
    out += ",\"versions\":\(mailbox.versionCount),\"history\":\(mailbox.history.count)"
    out += ",\"last_change\":\(JSONText.string(TrafficRecord.timestamp(mailbox.lastChange)))"
    out += ",\"last_writer\":\(JSONText.string(orNull: current?.sender)),\"seq\":\(number(current?.sequence))"
    out +=
      ",\"summary\":\(JSONText.string(orNull: current.map { TerminalWidth.truncated($0.summary, toColumns: width) }))"
    out += ",\"error\":\(JSONText.string(orNull: mailbox.error))"
    return out + ",\"decode_error\":\(JSONText.string(orNull: current?.decodeError))}"
  }

  private static let times: [Int64] = [
    0, 1, 999, 1_000, 1_764_600_000_123, -1, -1_000, -86_400_001, 253_402_300_799_999, 253_402_300_800_000,
    9_999_999_999_999_999, -62_167_219_200_001, Int64.max / 1_000_000,
  ]

  @Test(arguments: times)
  func aMailboxReadsAsTheStringRenderingDid(_ time: Int64) {
    let state = ModelState()
    let names: [FileName] = [
      "plain", "quo\"te\\slash", "e\u{301}\u{202E}x\n", FileName(bytes: [0x62, 0x61, 0x64, 0xFF]),
      FileName(bytes: [0x00, 0x41]),
    ]
    for name in names {
      var mailbox = Mailbox(identifier: name)
      mailbox.lastChange = time
      #expect(state.mailboxJSON(mailbox, width: 200) == reference(mailbox, width: 200), "\(name) at \(time)")
      mailbox.error = "it is \"not\" a regular file"
      #expect(state.mailboxJSON(mailbox, width: 200) == reference(mailbox, width: 200), "\(name) at \(time)")
      mailbox.error = nil
      mailbox.current = MailboxVersion(
        serial: 7, bytes: [1, 2, 3], size: Int.max, modifiedNanoseconds: time &* 1_000_000,
        observedMilliseconds: time, sender: "app \u{1B}[31m", sequence: UInt64.max,
        summary: String(repeating: "wide 漢字 ", count: 40), decodeError: "not \"an\" archive \u{1B}]0;x\u{7}")
      mailbox.versionCount = 12
      mailbox.history = [mailbox.current].compactMap { $0 }
      for width in [0, 1, 10, 200] {
        #expect(
          state.mailboxJSON(mailbox, width: width) == reference(mailbox, width: width), "\(name) at \(time)")
      }
      mailbox.current = MailboxVersion(
        serial: 8, bytes: nil, size: 0, modifiedNanoseconds: Int64.min, observedMilliseconds: 0)
      #expect(state.mailboxJSON(mailbox, width: 200) == reference(mailbox, width: 200), "\(name) at \(time)")
    }
  }

  @Test func numbersReadAsStringWritesThem() {
    let values: [Int64] = [0, 1, 9, 10, 99, 100, -1, -10, Int64.max, Int64.min, 1_234_567_890]
    for value in values {
      var out: [UInt8] = []
      JSONBytes.appendDecimal(value, to: &out)
      #expect(String(decoding: out, as: UTF8.self) == String(value))
    }
    var out: [UInt8] = []
    JSONBytes.appendNumber(UInt64.max, to: &out)
    JSONBytes.appendNumber(Int?.none, to: &out)
    #expect(String(decoding: out, as: UTF8.self) == String(UInt64.max) + "null")
  }
}
