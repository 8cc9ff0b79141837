/// Where one resource transfer stands, on one side (`NSProgress` of `sendResourceAtURL`).
public struct PeerResourceProgress: Sendable, Hashable {
  /// Which side of the transfer this peer is.
  public enum Direction: String, Sendable, Hashable {
    case sending
    case receiving
  }

  public var id: PeerResourceID
  /// The name the sender gave it (raw text: escape it to show it).
  public var name: String
  /// The other side: the receiver when sending, the sender when receiving.
  public var peer: PeerIdentity
  public var direction: Direction
  /// The bytes the receiver holds (as the sender last heard, when sending).
  public var bytes: UInt64
  /// The resource's size in bytes.
  public var total: UInt64

  public init(
    id: PeerResourceID, name: String, peer: PeerIdentity, direction: Direction, bytes: UInt64, total: UInt64
  ) {
    self.id = id
    self.name = name
    self.peer = peer
    self.direction = direction
    self.bytes = bytes
    self.total = total
  }

  /// `bytes` of `total`, from 0 to 1 (1 for an empty resource that is done).
  public var fraction: Double { total == 0 ? (bytes == 0 ? 0 : 1) : Double(bytes) / Double(total) }
}
