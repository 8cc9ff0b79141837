/// Cuts a byte stream into frames: feed it what a socket reads, take out whole frames.
///
/// An oversized length is refused as soon as its prefix arrives (nothing is buffered for it);
/// ``finish()`` reports a stream that ended inside a frame.
///
/// Inlinable, so that each module reading frames (the device link, the peers' link) runs it
/// specialized for its codec: compiled once for every codec, a frame went through value
/// witnesses (about 2 µs a peer frame).
public struct LengthPrefixedFrameReader<Codec: LengthPrefixedCodec>: Sendable {
  public let codec: Codec
  @usableFromInline var buffer: [UInt8] = []
  @usableFromInline var start = 0

  @inlinable public init(codec: Codec) { self.codec = codec }

  /// Adds bytes read from the stream.
  @inlinable public mutating func append(_ bytes: some Collection<UInt8>) {
    if start > 0 && start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    } else if start > 65536 && start * 2 > buffer.count {
      buffer.removeSubrange(0..<start)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// The next whole frame, or `nil` until more bytes arrive.
  @inlinable public mutating func next() throws(Codec.Failure) -> Codec.Frame? {
    let available = buffer.count - start
    guard available >= 4 else { return nil }
    let length = try codec.announcedLength(buffer[start..<(start + 4)])
    guard available - 4 >= length else { return nil }
    let frame = try codec.decodeBody(buffer, offset: start + 4, length: length)
    start += 4 + length
    return frame
  }

  /// Throws when the stream ended with part of a frame still buffered.
  @inlinable public func finish() throws(Codec.Failure) {
    let available = buffer.count - start
    if available == 0 { return }
    if available < 4 { throw Codec.Failure(.truncated(needed: 4, available: available)) }
    let length = try codec.announcedLength(buffer[start..<(start + 4)])
    throw Codec.Failure(.truncated(needed: length, available: available - 4))
  }
}
