import PeerSession
import Testing

@testable import DevicePairing

/// The local link's own frame writer and reader (LocalPeerFrameWriter, LocalPeerFrameReader)
/// speak `PeerFrameCodec`'s format exactly: the same bytes, the same frames, the same refusals.
@Suite struct LocalPeerFrameCodingTests {
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

  @Test func theWriterWritesWhatTheCodecWrites() throws {
    let codec = PeerFrameCodec()
    let writer = LocalPeerFrameWriter(codec: codec)
    for frame in try Self.frames() { #expect(try writer.encode(frame) == codec.encode(frame)) }
  }

  @Test func theWriterRefusesWhatTheCodecRefuses() throws {
    let source = PeerIdentity(name: try PeerName("p"))
    let small = PeerFrameCodec(maximumFrameBytes: 100)
    let long = PeerFrame(kind: .data, source: source, text: String(repeating: "x", count: 256))
    let large = PeerFrame(kind: .data, source: source, payload: [UInt8](repeating: 0, count: 100))
    for (codec, frame) in [(PeerFrameCodec(), long), (small, large)] {
      #expect(throws: PeerFrameError.self) { try LocalPeerFrameWriter(codec: codec).encode(frame) }
      #expect(throws: PeerFrameError.self) { try codec.encode(frame) }
    }
  }

  /// Frames cut from a stream that arrives a byte at a time, then in one piece, are the frames
  /// written; a stream that ends inside a frame is refused, as an oversized length is.
  @Test func theReaderReadsWhatTheCodecReads() throws {
    let codec = PeerFrameCodec()
    let frames = try Self.frames()
    let stream = try frames.flatMap { try codec.encode($0) }
    var bytewise = LocalPeerFrameReader(codec: codec)
    var read: [PeerFrame] = []
    for byte in stream {
      bytewise.append([byte][...])
      while let frame = try bytewise.next() { read.append(frame) }
    }
    #expect(read == frames)
    try bytewise.finish()
    var whole = LocalPeerFrameReader(codec: codec)
    whole.append(stream.dropLast())
    var wholeRead: [PeerFrame] = []
    while let frame = try whole.next() { wholeRead.append(frame) }
    #expect(wholeRead == Array(frames.dropLast()))
    #expect(throws: PeerFrameError.self) { try whole.finish() }
    var generic = PeerFrameReader(codec: codec)
    generic.append(stream.dropLast())
    while try generic.next() != nil {}
    #expect(throws: PeerFrameError.self) { try generic.finish() }
    var oversized = LocalPeerFrameReader(codec: PeerFrameCodec(maximumFrameBytes: 100))
    oversized.append([0, 0, 1, 0][...])
    #expect(throws: PeerFrameError.self) { try oversized.next() }
  }
}
