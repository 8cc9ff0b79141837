/// Big-endian integers and length-prefixed strings appended to a byte array.
package struct ByteWriter {
  package var bytes: [UInt8] = []

  package init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

  package mutating func append(_ value: UInt8) { bytes.append(value) }

  package mutating func append(_ value: UInt16) {
    bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    bytes.append(UInt8(truncatingIfNeeded: value))
  }

  package mutating func append(_ value: UInt32) {
    for shift in stride(from: 24, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: value >> shift))
    }
  }

  package mutating func append(_ value: UInt64) {
    for shift in stride(from: 56, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: value >> shift))
    }
  }

  package mutating func append(contentsOf data: some Collection<UInt8>) { bytes.append(contentsOf: data) }
}

/// Reads what ``ByteWriter`` writes, refusing to read past the end.
package struct ByteReader {
  private let bytes: [UInt8]
  package private(set) var offset: Int

  package init(_ bytes: [UInt8], offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  package var remaining: Int { bytes.count - offset }

  private mutating func take(_ count: Int) throws(FrameError) -> ArraySlice<UInt8> {
    guard count >= 0, remaining >= count else {
      throw .truncated(needed: count, available: max(remaining, 0))
    }
    defer { offset += count }
    return bytes[offset..<(offset + count)]
  }

  package mutating func readByte() throws(FrameError) -> UInt8 { try take(1).first ?? 0 }

  package mutating func readUInt16() throws(FrameError) -> UInt16 {
    try take(2).reduce(0) { $0 << 8 | UInt16($1) }
  }

  package mutating func readUInt32() throws(FrameError) -> UInt32 {
    try take(4).reduce(0) { $0 << 8 | UInt32($1) }
  }

  package mutating func readUInt64() throws(FrameError) -> UInt64 {
    try take(8).reduce(0) { $0 << 8 | UInt64($1) }
  }

  package mutating func readBytes(_ count: Int) throws(FrameError) -> [UInt8] { Array(try take(count)) }

  /// UTF-8 text of `count` bytes; invalid UTF-8 is refused.
  package mutating func readText(_ count: Int, what: String) throws(FrameError) -> String {
    let slice = try take(count)
    guard let text = String(validating: slice, as: UTF8.self) else {
      throw .malformed("the \(what) is not valid UTF-8")
    }
    return text
  }
}
