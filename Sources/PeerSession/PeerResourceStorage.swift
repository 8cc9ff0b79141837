/// Where received resources are kept (files under the peer's directory, in the local slice).
///
/// The engine calls these in order for one resource: ``begin(_:name:size:)``, then
/// ``write(_:bytes:at:)`` for each chunk in order, then ``finish(_:)`` or ``discard(_:)``.
public protocol PeerResourceStorage: Sendable {
  /// Prepares to receive `size` bytes of `resource`, named `name` by its sender (raw text).
  func begin(_ resource: PeerResourceID, name: String, size: UInt64) throws(PeerError)
  /// Keeps `bytes` of `resource` at `offset`.
  func write(_ resource: PeerResourceID, bytes: [UInt8], at offset: UInt64) throws(PeerError)
  /// Completes `resource`: where it is now (a path, in the local slice).
  func finish(_ resource: PeerResourceID) throws(PeerError) -> String
  /// Forgets a partial `resource` (cancelled, or its sender went away).
  func discard(_ resource: PeerResourceID)
}
