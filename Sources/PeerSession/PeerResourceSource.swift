/// The bytes of a resource being sent, read a chunk at a time (a file, in the local slice).
public protocol PeerResourceSource: Sendable {
  /// The resource's size in bytes.
  var size: UInt64 { get }
  /// `count` bytes (fewer only at the end) from `offset`.
  func read(offset: UInt64, count: Int) throws(PeerError) -> [UInt8]
}
