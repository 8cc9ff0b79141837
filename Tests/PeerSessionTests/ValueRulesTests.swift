import PeerSession
import Testing

@Suite struct ValueRulesTests {
  @Test func serviceTypesAreAcceptedUpToFifteenCharacters() throws {
    #expect(try ServiceType("a").text == "a")
    #expect(try ServiceType("abcdefghijklmno").text.count == 15)
    #expect(try ServiceType("my-chat-2").text == "my-chat-2")
    #expect(try ServiceType("1a").text == "1a")
    #expect(throws: ServiceTypeError(text: "abcdefghijklmnop", rule: .tooLong(characters: 16))) {
      try ServiceType("abcdefghijklmnop")
    }
  }

  @Test(arguments: [
    ("", ServiceTypeError.Rule.empty),
    ("-chat", .hyphenAtEnd),
    ("chat-", .hyphenAtEnd),
    ("-", .noLetter),
    ("my--chat", .adjacentHyphens),
    ("12345", .noLetter),
    ("1-2", .noLetter),
    ("Chat", .character("C")),
    ("chat_room", .character("_")),
    ("café", .character("é")),
    ("chat room", .character(" ")),
  ])
  func serviceTypesBreakingARuleAreRefusedWithIt(text: String, rule: ServiceTypeError.Rule) {
    #expect(throws: ServiceTypeError(text: text, rule: rule)) { try ServiceType(text) }
  }

  @Test func aRefusedServiceTypeSaysTheRuleAndEscapesTheText() {
    let error = ServiceTypeError(text: "a\u{1B}[2J", rule: .character("\u{1B}"))
    #expect(!error.description.contains("\u{1B}"))
    #expect(error.description.contains("only ASCII lowercase letters, digits and hyphens"))
    #expect(
      ServiceTypeError(text: "my--chat", rule: .adjacentHyphens).description
        == "the service type \"my--chat\" is refused: it has two hyphens next to each other")
    #expect(ServiceTypeError(text: "", rule: .empty).reason.contains("1 to 15"))
  }

  @Test func peerNamesAreAcceptedUpTo63BytesAndRefusedBeyond() throws {
    let long = String(repeating: "a", count: 63)
    #expect(try PeerName(long).text == long)
    #expect(throws: PeerNameError(text: long + "a", rule: .tooLong(bytes: 64))) { try PeerName(long + "a") }
    #expect(throws: PeerNameError(text: "", rule: .empty)) { try PeerName("") }
    #expect(PeerNameError(text: long + "a", rule: .tooLong(bytes: 64)).reason.contains("at most 63"))
  }

  @Test func multiByteCharactersCountInBytesAtTheBoundary() throws {
    // "é" is two bytes: 31 of them and one "a" make 63; one more "é" would be 64.
    let fits = String(repeating: "é", count: 31) + "a"
    #expect(fits.utf8.count == 63)
    #expect(try PeerName(fits).text == fits)
    let over = String(repeating: "a", count: 62) + "é"
    #expect(throws: PeerNameError(text: over, rule: .tooLong(bytes: 64))) { try PeerName(over) }
    // A four-byte emoji that would cross the boundary is refused, never cut.
    let emoji = String(repeating: "a", count: 60) + "🙂"
    #expect(throws: PeerNameError(text: emoji, rule: .tooLong(bytes: 64))) { try PeerName(emoji) }
  }

  /// Both order through ``RuledText``: by the bytes of their UTF-8, whatever the locale.
  @Test func peerNamesAndServiceTypesOrderByTheirBytes() throws {
    let names = try ["b", "B", "é", "a", "ab"].map(PeerName.init)
    #expect(names.sorted().map(\.text) == ["B", "a", "ab", "b", "é"])
    let types = try ["chat-2", "chat", "1a", "a-b"].map(ServiceType.init)
    #expect(types.sorted().map(\.text) == ["1a", "a-b", "chat", "chat-2"])
    #expect(try PeerName("e\u{301}") < PeerName("é"))
  }

  @Test func namesAreEscapedWhenShown() throws {
    let name = try PeerName("evil\u{1B}]0;owned\u{07}")
    #expect(!name.shown.contains("\u{1B}"))
    #expect(!name.shown.contains("\u{07}"))
    #expect(try PeerName("phone").shown == "phone")
    let error = PeerNameError(text: "\u{1B}[31m", rule: .empty)
    #expect(!error.description.contains("\u{1B}"))
  }

  /// A peer's control `status` is one entry a line with tab-separated fields, each peer written as
  /// its identity: a name holding a line break or a tab cannot make a line or a field of its own.
  @Test func anIdentityIsOneLineAndOneFieldWhateverItsName() throws {
    let name = try PeerName("a\nfound b#0001\tx\r")
    let identity = try #require(PeerIdentity(name: name, id: 1))
    #expect(!identity.description.contains("\n"))
    #expect(!identity.description.contains("\t"))
    #expect(!identity.description.contains("\r"))
    #expect(identity.description.hasSuffix("#0001"))
  }

  @Test func eachRunIsANewIdentityAndNamesAreOnlyLabels() throws {
    let name = try PeerName("phone")
    let first = PeerIdentity(name: name)
    let second = PeerIdentity(name: name)
    #expect(first != second)
    #expect(first.name == second.name)
    #expect(first.id != 0 && second.id != 0)
    #expect(PeerIdentity(name: name, id: 0) == nil)
    #expect(PeerIdentity(name: name, id: 7) == PeerIdentity(name: name, id: 7))
    #expect(PeerIdentity(name: name, id: 0xABCD_1234)?.description == "phone#1234")
  }

  @Test func discoveryInfoFollowsTheTXTRecordRules() throws {
    #expect(try DiscoveryInfo(["room": "lobby"]).entries == ["room": "lobby"])
    let longest = String(repeating: "v", count: 255 - 2)
    #expect(try DiscoveryInfo(["k": longest]).entries["k"] == longest)
    #expect(throws: DiscoveryInfoError.self) { try DiscoveryInfo(["k": longest + "v"]) }
    #expect(throws: DiscoveryInfoError(key: "", reason: "the key is empty")) { try DiscoveryInfo(["": "x"]) }
    #expect(throws: DiscoveryInfoError(key: "a=b", reason: "the key contains '='")) {
      try DiscoveryInfo(["a=b": "x"])
    }
  }
}
