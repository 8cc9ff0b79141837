import DeviceSession
import Testing

/// The device link's `FrameCodec` writes the documented bytes: every field in its place,
/// big-endian, so that the shared byte writer and reader keep the wire format.
@Suite struct FrameCodecBytesTests {
  @Test func theCodecWritesTheDocumentedBytes() throws {
    let frame = DeviceFrame(
      kind: .message, identifier: "bé", transferID: 0x1122_3344_5566_7788, sequence: 0x0102_0304_0506_0708,
      sender: .watch, time: -2, flags: [.replyRequested, .deliversIdentical], payload: [9, 8, 7])
    var expected: [UInt8] = []
    expected += [0, 0, 0, 36 + 3 + 3]
    expected += [UInt8(ascii: "W"), UInt8(ascii: "D"), 1, 2, 2, 1 | 2, 0, 3] as [UInt8]
    expected += [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
    expected += [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]
    expected += [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]
    expected += [0, 0, 0, 3]
    expected += [UInt8(ascii: "b"), 0xC3, 0xA9]
    expected += [9, 8, 7]
    let codec = FrameCodec()
    #expect(try codec.encode(frame) == expected)
    #expect(try codec.decode(expected) == frame)
    var reader = FrameReader()
    reader.append(expected + expected)
    #expect(try reader.next() == frame)
    #expect(try reader.next() == frame)
    #expect(try reader.next() == nil)
    try reader.finish()
  }
}
