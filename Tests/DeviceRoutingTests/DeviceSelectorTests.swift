import DeviceRouting
import DeviceSession
import Testing

@Suite struct DeviceSelectorTests {
  static func device(_ pair: String, _ role: DeviceRole) throws -> DeviceSelector {
    .device(DeviceAddress(pair: try PairName(pair), role: role))
  }

  @Test func pairsAndRolesAndPeersAreSelected() throws {
    #expect(try DeviceSelector("r1:phone") == Self.device("r1", .phone))
    #expect(try DeviceSelector("r1:watch") == Self.device("r1", .watch))
    #expect(try DeviceSelector("r1/watch") == Self.device("r1", .watch))
    // A pair name may hold ':', a role never does: the last ':' separates them.
    #expect(try DeviceSelector("desk:2:phone") == Self.device("desk:2", .phone))
    #expect(try DeviceSelector("peer:desk") == .peer(name: "desk"))
    #expect(try DeviceSelector("peer:phone") == .peer(name: "phone"))
    #expect(try DeviceSelector("peer:a:b") == .peer(name: "a:b"))
    // A pair named "peer" is reached with '/'.
    #expect(try DeviceSelector("peer/phone") == Self.device("peer", .phone))
  }

  @Test func aSelectorPrintsAsItParses() throws {
    for text in ["r1:phone", "desk:2:watch", "peer:desk", "peer/phone", "peer:x/watch"] {
      let selector = try DeviceSelector(text)
      #expect(try DeviceSelector(selector.description) == selector, "\(text)")
    }
    #expect(try Self.device("r1", .phone).description == "r1:phone")
    #expect(try Self.device("peer", .watch).description == "peer/watch")
  }

  @Test func aBadSelectorSaysWhatIsWrong() {
    func reason(_ text: String) -> String? {
      do {
        _ = try DeviceSelector(text)
        return nil
      } catch {
        return error.reason
      }
    }
    #expect(reason("r1") == "expected PAIR:ROLE (as in r1:phone) or peer:NAME")
    #expect(reason("r1:tablet") == "the role must be phone or watch, not \"tablet\"")
    #expect(reason("r1:Phone") == "the role must be phone or watch, not \"Phone\"")
    #expect(reason(":phone") == "the pair name is not valid: it is empty")
    #expect(reason("..:phone") == "the pair name is not valid: it names a directory")
    #expect(reason("peer:") == "the peer name is not valid: it is empty")
    #expect(reason("r1:\u{1B}[2J") == "the role must be phone or watch, not \"\\u{1b}[2J\"")
  }

  /// The pair name's rules are PairName's own; at its limit and one byte over.
  @Test func pairNamesFollowThePairRules() throws {
    let longest = String(repeating: "p", count: PairName.maximumLength)
    #expect(try DeviceSelector(longest + ":phone") == Self.device(longest, .phone))
    #expect(throws: DeviceSelectorError.self) { try DeviceSelector(longest + "p:phone") }
    #expect(throws: DeviceSelectorError.self) { try DeviceSelector("a\u{7}b:phone") }
  }

  /// A peer name is not empty and at most 63 bytes of UTF-8 (the rule for peers).
  @Test func peerNamesAreAtMostSixtyThreeBytes() throws {
    let longest = String(repeating: "é", count: 31) + "x"
    #expect(longest.utf8.count == 63)
    #expect(try DeviceSelector("peer:" + longest) == .peer(name: longest))
    #expect(
      DeviceSelector.peerNameProblem(longest + "x")
        == "it is 64 bytes long; at most 63 are allowed (and #xxxx after them)")
    #expect(throws: DeviceSelectorError.self) { try DeviceSelector("peer:" + longest + "x") }
  }

  /// `NAME#xxxx` picks one of several peers of a name: the id's four hex digits do not count
  /// towards the name's 63 bytes, and only they do not.
  @Test func aLongestPeerNameMayCarryAnIdSuffix() throws {
    let longest = String(repeating: "é", count: 31) + "x"
    #expect(try DeviceSelector("peer:" + longest + "#3f2A") == .peer(name: longest + "#3f2A"))
    #expect(throws: DeviceSelectorError.self) { try DeviceSelector("peer:" + longest + "x#3f2a") }
    #expect(throws: DeviceSelectorError.self) { try DeviceSelector("peer:" + longest + "#3f2g") }
    #expect(throws: DeviceSelectorError.self) { try DeviceSelector("peer:" + longest + "#3f2a1") }
  }
}
