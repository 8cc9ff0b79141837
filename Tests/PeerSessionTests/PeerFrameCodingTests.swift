import PeerSession
import Testing

/// `PeerFrameCodec` writes the documented bytes, reads what it wrote whether a stream arrives a
/// byte at a time or whole, and refuses what it cannot write or read (the local link's own
/// writer and reader were held to these before they were folded into the codec).
@Suite struct PeerFrameCodingTests {
  static func frames() throws -> [PeerFrame] {
    let source = PeerIdentity(name: try PeerName("Zoë's phone"))
    return [
      PeerFrame(kind: .advertisement, source: source, text: "chat", payload: [1, 2, 3]),
      PeerFrame(
        kind: .data, flags: .reliable, source: source, destination: 0x0102_0304_0506_0708,
        sequence: UInt64.max - 1, value: 42, payload: (0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
      PeerFrame(
        kind: .resourceChunk, source: source, destination: 9, text: String(repeating: "é", count: 127)),
      PeerFrame(kind: .leave, source: source),
    ]
  }

  /// Every field in its place, big-endian, as the codec's documentation lays them out.
  @Test func theCodecWritesTheDocumentedBytes() throws {
    let source = try #require(PeerIdentity(name: try PeerName("pé"), id: 0x1122_3344_5566_7788))
    let frame = PeerFrame(
      kind: .data, flags: [.reliable, .completed], source: source, destination: 0x0102_0304_0506_0708,
      sequence: 0x0A0B_0C0D_0E0F_1011, value: 0xF0E0_D0C0_B0A0_9080, text: "ab", payload: [9, 8, 7])
    var expected: [UInt8] = []
    expected += [0, 0, 0, 44 + 3 + 2 + 3]
    expected += [UInt8(ascii: "W"), UInt8(ascii: "P"), 1, 7, 2 | 4, 3, 0, 2] as [UInt8]
    expected += [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]
    expected += [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
    expected += [0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11]
    expected += [0xF0, 0xE0, 0xD0, 0xC0, 0xB0, 0xA0, 0x90, 0x80]
    expected += [0, 0, 0, 3]
    expected += [UInt8(ascii: "p"), 0xC3, 0xA9]
    expected += [UInt8(ascii: "a"), UInt8(ascii: "b")]
    expected += [9, 8, 7]
    let codec = PeerFrameCodec()
    #expect(try codec.encode(frame) == expected)
    #expect(try codec.decode(expected) == frame)
  }

  @Test func theCodecRefusesWhatItCannotWrite() throws {
    let source = PeerIdentity(name: try PeerName("p"))
    let small = PeerFrameCodec(maximumFrameBytes: 100)
    let long = PeerFrame(kind: .data, source: source, text: String(repeating: "x", count: 256))
    let large = PeerFrame(kind: .data, source: source, payload: [UInt8](repeating: 0, count: 100))
    #expect(throws: PeerFrameError.self) { try PeerFrameCodec().encode(long) }
    #expect(throws: PeerFrameError.self) { try small.encode(large) }
    let fits = PeerFrame(kind: .data, source: source, payload: [UInt8](repeating: 0, count: 100 - 44 - 1))
    #expect(try small.encode(fits).count == 4 + 100)
  }

  /// Frames cut from a stream that arrives a byte at a time, then in one piece, are the frames
  /// written; a stream that ends inside a frame is refused, as an oversized length is.
  @Test func theReaderReadsWhatTheCodecWrites() throws {
    let codec = PeerFrameCodec()
    let frames = try Self.frames()
    let stream = try frames.flatMap { try codec.encode($0) }
    var bytewise = PeerFrameReader(codec: codec)
    var read: [PeerFrame] = []
    for byte in stream {
      bytewise.append([byte][...])
      while let frame = try bytewise.next() { read.append(frame) }
    }
    #expect(read == frames)
    try bytewise.finish()
    var whole = PeerFrameReader(codec: codec)
    whole.append(stream.dropLast())
    var wholeRead: [PeerFrame] = []
    while let frame = try whole.next() { wholeRead.append(frame) }
    #expect(wholeRead == Array(frames.dropLast()))
    #expect(throws: PeerFrameError.self) { try whole.finish() }
    var oversized = PeerFrameReader(codec: PeerFrameCodec(maximumFrameBytes: 100))
    oversized.append([0, 0, 0, 101][...])
    #expect(throws: PeerFrameError.self) { try oversized.next() }
    var short = PeerFrameReader(codec: codec)
    short.append([0, 0, 0, 43][...])
    #expect(throws: PeerFrameError.self) { try short.next() }
  }
}
