/// One peer for the length of one run, as `MCPeerID` is: a fresh identity each time a peer
/// starts, with its name as a label only. Two peers may share a name; they never share an id.
public struct PeerIdentity: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The peer's display name.
  public let name: PeerName
  /// What tells this peer from every other: random, never 0.
  public let id: UInt64

  /// A new identity for `name`, never equal to one made before.
  public init(name: PeerName) {
    var generator = SystemRandomNumberGenerator()
    self.init(name: name, generator: &generator)
  }

  /// A new identity for `name` whose id `generator` draws (tests pass a seeded one).
  public init(name: PeerName, generator: inout some RandomNumberGenerator) {
    self.name = name
    self.id = UInt64.random(in: 1...UInt64.max, using: &generator)
  }

  /// The identity with this `id`, as a frame carries it; `nil` for id 0, which names no peer.
  public init?(name: PeerName, id: UInt64) {
    guard id != 0 else { return nil }
    self.name = name
    self.id = id
  }

  /// The name, escaped, and the id's last four hex digits, which tell two peers of one name apart.
  public var description: String {
    let hex = String(id & 0xFFFF, radix: 16)
    return "\(name.shown)#\(String(repeating: "0", count: 4 - hex.count))\(hex)"
  }

  public static func < (left: PeerIdentity, right: PeerIdentity) -> Bool {
    left.name == right.name ? left.id < right.id : left.name < right.name
  }
}
