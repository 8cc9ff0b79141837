import DeviceSession
import PeerSession

/// Cuts what a peer connection reads into ``PeerFrame``s, as ``PeerFrameReader`` does (the
/// same checks, the same errors), for ``LocalPeerLink``'s reading thread: the length prefix is
/// read here and the codec's `decodeBody` called directly. The generic reader is compiled once
/// for every codec, outside the module that names this one, so each frame went through
/// unspecialized generic code (about 2 µs a frame in `perf`, on the way from a message's
/// arrival to its handler).
struct LocalPeerFrameReader {
  let codec: PeerFrameCodec
  private var buffer: [UInt8] = []
  private var start = 0

  init(codec: PeerFrameCodec) { self.codec = codec }

  /// Adds bytes read from the stream.
  mutating func append(_ bytes: ArraySlice<UInt8>) {
    if start > 0 && start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    } else if start > 65536 && start * 2 > buffer.count {
      buffer.removeSubrange(0..<start)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// The next whole frame, or `nil` until more bytes arrive. An oversized length is refused as
  /// soon as its prefix arrives.
  mutating func next() throws(PeerFrameError) -> PeerFrame? {
    let available = buffer.count - start
    guard available >= 4 else { return nil }
    let length = try announcedLength()
    guard available - 4 >= length else { return nil }
    let frame = try codec.decodeBody(buffer, offset: start + 4, length: length)
    start += 4 + length
    return frame
  }

  /// Throws when the stream ended with part of a frame still buffered.
  func finish() throws(PeerFrameError) {
    let available = buffer.count - start
    if available == 0 { return }
    if available < 4 { throw PeerFrameError(.truncated(needed: 4, available: available)) }
    throw PeerFrameError(.truncated(needed: try announcedLength(), available: available - 4))
  }

  /// The length the prefix at `start` announces (big-endian), checked against the codec's
  /// limit and its header's size.
  private func announcedLength() throws(PeerFrameError) -> Int {
    var length = 0
    for index in start..<(start + 4) { length = length << 8 | Int(buffer[index]) }
    guard length <= codec.maximumFrameBytes else {
      throw PeerFrameError(.oversized(bytes: length, limit: codec.maximumFrameBytes))
    }
    guard length >= PeerFrameCodec.headerBytes else {
      throw PeerFrameError(.malformed("a frame of \(length) bytes is shorter than its header"))
    }
    return length
  }
}
