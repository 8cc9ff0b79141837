/// Big-endian integers and length-prefixed strings appended to a byte array.
///
/// Inlinable, so that the codecs of other modules (the peers') write through code specialized
/// for their own byte collections instead of generic code run through value witnesses.
@usableFromInline package struct ByteWriter {
  @usableFromInline package var bytes: [UInt8] = []

  @inlinable package init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

  @inlinable @inline(__always) package mutating func append(_ value: UInt8) { bytes.append(value) }

  @inlinable @inline(__always) package mutating func append(_ value: UInt16) { appendBigEndian(value) }

  @inlinable @inline(__always) package mutating func append(_ value: UInt32) { appendBigEndian(value) }

  @inlinable @inline(__always) package mutating func append(_ value: UInt64) { appendBigEndian(value) }

  /// The integer's bytes, most significant first, in one append.
  @inlinable @inline(__always) mutating func appendBigEndian(_ value: some FixedWidthInteger) {
    withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
  }

  @inlinable package mutating func append(contentsOf data: some Collection<UInt8>) {
    bytes.append(contentsOf: data)
  }
}

/// Reads what ``ByteWriter`` writes, refusing to read past the end.
@usableFromInline package struct ByteReader {
  private let bytes: [UInt8]
  package private(set) var offset: Int

  package init(_ bytes: [UInt8], offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  package var remaining: Int { bytes.count - offset }

  /// The offset of `count` bytes to read next, which are then taken.
  private mutating func take(_ count: Int) throws(FrameError) -> Int {
    guard count >= 0, remaining >= count else {
      throw .truncated(needed: count, available: max(remaining, 0))
    }
    defer { offset += count }
    return offset
  }

  /// The big-endian integer of `count` (at most 8) bytes.
  private mutating func readInteger(_ count: Int) throws(FrameError) -> UInt64 {
    let at = try take(count)
    var value: UInt64 = 0
    for index in at..<(at + count) { value = value << 8 | UInt64(bytes[index]) }
    return value
  }

  @usableFromInline package mutating func readByte() throws(FrameError) -> UInt8 { bytes[try take(1)] }

  package mutating func readUInt16() throws(FrameError) -> UInt16 { UInt16(try readInteger(2)) }

  package mutating func readUInt32() throws(FrameError) -> UInt32 { UInt32(try readInteger(4)) }

  package mutating func readUInt64() throws(FrameError) -> UInt64 { try readInteger(8) }

  package mutating func readBytes(_ count: Int) throws(FrameError) -> [UInt8] {
    let at = try take(count)
    return Array(bytes[at..<(at + count)])
  }

  /// UTF-8 text of `count` bytes; invalid UTF-8 is refused.
  package mutating func readText(_ count: Int, what: String) throws(FrameError) -> String {
    let at = try take(count)
    guard let text = String(validating: bytes[at..<(at + count)], as: UTF8.self) else {
      throw .malformed("the \(what) is not valid UTF-8")
    }
    return text
  }
}
