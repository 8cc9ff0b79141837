/// A universally unique identifier as `NSUUID` archives it: 16 bytes, without Foundation.
public struct ArchiveUUID: Sendable, Hashable, CustomStringConvertible {
  /// The first eight bytes, big-endian (the first byte is the most significant).
  public var high: UInt64
  /// The last eight bytes, big-endian.
  public var low: UInt64

  public init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// The UUID of exactly 16 bytes, in order; `nil` for any other count.
  public init?(bytes: some Collection<UInt8>) {
    guard bytes.count == 16 else { return nil }
    var high: UInt64 = 0
    var low: UInt64 = 0
    for (index, byte) in bytes.enumerated() {
      if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
    }
    self.init(high: high, low: low)
  }

  /// The 16 bytes in order.
  public var bytes: [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
      + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
  }

  /// The canonical text, upper-case hex in groups of 8-4-4-4-12 (as Foundation's `uuidString`),
  /// such as `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
  public var uuidString: String {
    let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
    var out = [UInt8]()
    out.reserveCapacity(36)
    for (index, byte) in bytes.enumerated() {
      if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  public var description: String { uuidString }
}
