import DevicePairing
import PeerSession
import Testing

/// How the peer verbs pick a peer: by name, `NAME#xxxx`, the form the peer is shown in, or `#xxxx`.
@Suite struct PeerSelectorTests {
  let plain: PeerIdentity
  let twin: PeerIdentity
  let hostile: PeerIdentity
  var all: [PeerIdentity] { [plain, twin, hostile] }

  init() throws {
    plain = try #require(PeerIdentity(name: try PeerName("desk"), id: 0x1111_6da4))
    twin = try #require(PeerIdentity(name: try PeerName("desk"), id: 0x2222_0001))
    hostile = try #require(PeerIdentity(name: try PeerName("de\u{1B}[31msk\u{7}"), id: 0x3333_beef))
  }

  @Test func aNameNamesEveryPeerOfItAndTheDigitsPickOne() {
    #expect(PeerSelector.matches("desk", among: all) == [plain, twin])
    #expect(PeerSelector.matches("desk#6da4", among: all) == [plain])
    #expect(PeerSelector.matches("desk#beef", among: all).isEmpty)
  }

  /// A peer whose name holds control characters is shown escaped and quoted: that shown form
  /// reaches it, as do its id's digits alone, so an operator can name it without typing raw bytes.
  @Test func thePeerAsShownAndTheDigitsAloneReachAPeerOfAnyName() {
    #expect(PeerSelector.matches(hostile.description, among: all) == [hostile])
    #expect(!hostile.description.contains("\u{1B}"))
    #expect(PeerSelector.matches("#beef", among: all) == [hostile])
    #expect(PeerSelector.matches("#0001", among: all) == [twin])
    #expect(PeerSelector.matches("#zzzz", among: all).isEmpty)
  }
}
