/// Names one resource transfer: its sender and the sender's number for it.
public struct PeerResourceID: Sendable, Hashable, CustomStringConvertible {
  /// The sending peer's id.
  public var sender: UInt64
  /// The sender's number for the transfer (1, 2, …).
  public var number: UInt64

  public var description: String { "\(String(sender, radix: 16))/\(number)" }
}
