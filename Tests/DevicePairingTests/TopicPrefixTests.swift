import DevicePairing
import DeviceSession
import PeerSession
import Testing

/// The devices' and the peers' topics stand under one prefix, checked by one rule: both refuse
/// the same prefixes with the same words, and take the same ones.
@Suite struct TopicPrefixTests {
  static func address() throws -> DeviceAddress { DeviceAddress(pair: try PairName("p"), role: .phone) }
  static func service() throws -> ServiceType { try ServiceType("bench") }

  /// Why DeviceTopics refuses `prefix`, or `nil` when it takes it.
  static func deviceRefusal(_ prefix: String) throws -> String? {
    let address = try address()
    do {
      _ = try DeviceTopics(address: address, prefix: prefix)
      return nil
    } catch {
      return error.reason
    }
  }

  /// Why PeerTopics refuses `prefix`, or `nil` when it takes it.
  static func peerRefusal(_ prefix: String) throws -> String? {
    let service = try service()
    do {
      _ = try PeerTopics(service: service, prefix: prefix)
      return nil
    } catch {
      return error.reason
    }
  }

  @Test(arguments: ["", "$SYS", "/wormhole", "wormhole/", "a+b", "a/#", "a\u{0}b"])
  func aPrefixOneRefusesTheOtherRefusesInTheSameWords(prefix: String) throws {
    let device = try Self.deviceRefusal(prefix)
    #expect(device != nil)
    #expect(try Self.peerRefusal(prefix) == device)
  }

  @Test func wildcardsAndShapeAreEachSaid() throws {
    #expect(
      try Self.peerRefusal("a+b")
        == "the topic prefix contains '+', '#' or NUL, which MQTT topics cannot hold")
    #expect(
      try Self.peerRefusal("") == "the topic prefix must not be empty, start with '$' or '/', or end with '/'"
    )
  }

  @Test(arguments: ["wormhole/v1", "site/a b/v2", "x"])
  func aPrefixOneTakesTheOtherTakes(prefix: String) throws {
    #expect(try DeviceTopics(address: Self.address(), prefix: prefix).device == "\(prefix)/pairs/p/phone")
    #expect(try PeerTopics(service: Self.service(), prefix: prefix).base == "\(prefix)/peers/bench")
  }

  @Test func aPairNameWithAWildcardIsRefusedByName() throws {
    let address = DeviceAddress(pair: try PairName("a#b"), role: .watch)
    #expect(throws: LinkError("the pair name contains '+', '#' or NUL, which MQTT topics cannot hold")) {
      try DeviceTopics(address: address)
    }
  }
}
