import FleetModel
import FleetProtocol
import Testing
import WormholeVocabulary

/// Names no bridge can publish: a machine name beyond `bridge --name`'s 255 bytes, a directory
/// that is not an absolute path without NUL of at most 4096 bytes, an identifier that no local
/// mailbox can have (`.`, `..`, `/`, NUL, beyond 247 bytes). Anyone who can publish can invent
/// them; the fleet drops them with the reason, as it checks a local name.
@Suite struct FleetImpossibleNameTests {
  static let mail = Bridged.mailbox("m", "/d", "ok", .string("x"))

  /// `Bridged.mailbox`'s payload on the topic of `machine`, `directory` and `identifier` bytes.
  static func mailbox(machine: [UInt8] = Array("m".utf8), directory: [UInt8], identifier: [UInt8])
    -> FleetInput
  {
    FleetInput(
      topic: "wormhole/v1/machines/\(BridgeTopics.encoded(machine))/mailboxes/"
        + "\(BridgeTopics.encoded(directory))/\(BridgeTopics.encoded(identifier))",
      payload: mail.payload, isRetained: true)
  }

  @Test func mailboxesNoBridgeCanPublishAreDroppedWithTheReason() {
    let cases: [(FleetInput, String)] = [
      (Self.mailbox(directory: Array("/d".utf8), identifier: Array("..".utf8)), "names a directory"),
      (Self.mailbox(directory: Array("/d".utf8), identifier: Array(".".utf8)), "names a directory"),
      (Self.mailbox(directory: Array("/d".utf8), identifier: Array("a/b".utf8)), "contains '/'"),
      (Self.mailbox(directory: Array("/d".utf8), identifier: [0x61, 0, 0x62]), "NUL"),
      (
        Self.mailbox(directory: Array("/d".utf8), identifier: Array(repeating: 0x69, count: 248)), "248 bytes"
      ),
      (Self.mailbox(directory: Array("relative".utf8), identifier: Array("x".utf8)), "absolute"),
      (Self.mailbox(directory: Array("/d\u{0}e".utf8), identifier: Array("x".utf8)), "NUL"),
      (
        Self.mailbox(directory: [0x2F] + Array(repeating: 0x64, count: 4096), identifier: Array("x".utf8)),
        "4097 bytes"
      ),
      (
        Self.mailbox(
          machine: Array(repeating: 0x6E, count: 256), directory: Array("/d".utf8),
          identifier: Array("x".utf8)),
        "256 bytes"
      ),
      (Bridged.presence(String(repeating: "n", count: 30_000), "online"), "30000 bytes"),
      (Bridged.presence("a\u{0}b", "online"), "NUL"),
    ]
    for (input, reason) in cases {
      var fleet = FleetState()
      let change = fleet.apply([input], at: 1)
      #expect(change.dropped == 1 && fleet.machineNames.isEmpty, "\(input.topic.prefix(120))")
      #expect(fleet.lastDropReason?.contains(reason) == true, "\(fleet.lastDropReason ?? "nil")")
    }
  }

  @Test func theLongestNamesABridgeCanPublishAreKept() {
    var fleet = FleetState()
    let machine = String(repeating: "n", count: 255)
    let identifier = Array(repeating: UInt8(0x69), count: MessageIdentifier.maximumLength)
    let directory = [UInt8(0x2F)] + Array(repeating: UInt8(0x64), count: 4095)
    let change = fleet.apply(
      [Self.mailbox(machine: Array(machine.utf8), directory: directory, identifier: identifier)], at: 1)
    #expect(change.dropped == 0, "\(fleet.lastDropReason ?? "")")
    #expect(
      fleet.mailbox(FileName(bytes: identifier), in: FileName(bytes: directory), machine: machine) != nil)
  }
}
