/// The 64-bit FNV-1a hash: the mailbox lock offsets of `coordinated-file` (a contract between
/// processes: the same identifier gives the same offset in every build) and the watcher's file
/// stamps. Not for anything an attacker must not collide.
public struct FNV1a: Sendable, Hashable {
  /// The hash of what was added so far.
  public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

  public init() {}

  /// Adds one byte.
  public mutating func add(_ byte: UInt8) {
    value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
  }

  /// Adds each byte of `bytes`, in order.
  public mutating func add(_ bytes: some Sequence<UInt8>) {
    for byte in bytes { add(byte) }
  }

  /// Adds the eight bytes of `number`, least significant first.
  public mutating func add(littleEndian number: UInt64) {
    var rest = number
    for _ in 0..<8 {
      add(UInt8(truncatingIfNeeded: rest))
      rest >>= 8
    }
  }
}
