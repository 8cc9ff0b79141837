import DeviceSession
import Testing

@Suite struct FrameCodecTests {
  static let frame = DeviceFrame(
    kind: .transfer, identifier: "button", transferID: 42, sequence: 7, sender: .watch, time: -5,
    flags: [.replyRequested], payload: Array(0..<200).map { UInt8($0) })

  @Test func framesRoundTripThroughBytesAndAStream() throws {
    let codec = FrameCodec()
    let encoded = try codec.encode(Self.frame)
    #expect(try codec.decode(encoded) == Self.frame)
    var reader = FrameReader()
    var frames: [DeviceFrame] = []
    // Fed one byte at a time: frames come out whole, in order.
    for byte in encoded + encoded {
      reader.append([byte])
      while let frame = try reader.next() { frames.append(frame) }
    }
    #expect(frames == [Self.frame, Self.frame])
    try reader.finish()
  }

  @Test func anOversizedLengthIsRefusedBeforeItsBytesArrive() throws {
    var reader = FrameReader(codec: FrameCodec(maximumFrameBytes: 1000))
    reader.append([0x7F, 0xFF, 0xFF, 0xFF])
    #expect(throws: FrameError.oversized(bytes: 0x7FFF_FFFF, limit: 1000)) { try reader.next() }
    #expect(throws: FrameError.self) {
      try FrameCodec(maximumFrameBytes: 100).encode(
        DeviceFrame(kind: .message, sender: .phone, time: 0, payload: .init(repeating: 0, count: 200)))
    }
  }

  @Test func aStreamThatEndsInsideAFrameIsTruncated() throws {
    let encoded = try FrameCodec().encode(Self.frame)
    var reader = FrameReader()
    reader.append(encoded.dropLast(3))
    #expect(try reader.next() == nil)
    #expect(throws: FrameError.truncated(needed: encoded.count - 4, available: encoded.count - 7)) {
      try reader.finish()
    }
    #expect(throws: FrameError.self) { try FrameCodec().decode(Array(encoded.dropLast())) }
  }

  @Test func garbageIsRefusedNeverTrusted() throws {
    var encoded = try FrameCodec().encode(Self.frame)
    var badKind = encoded
    badKind[7] = 99
    #expect(throws: FrameError.malformed("unknown kind 99")) { try FrameCodec().decode(badKind) }
    var badRole = encoded
    badRole[8] = 0
    #expect(throws: FrameError.malformed("unknown sender role 0")) { try FrameCodec().decode(badRole) }
    // An identifier length that points past the payload disagrees with the frame's length.
    encoded[11] = 0xFF
    #expect(throws: FrameError.self) { try FrameCodec().decode(encoded) }
    #expect(throws: FrameError.self) { try FrameCodec().decode(Array("GET / HTTP/1.1\r\n\r\n".utf8)) }
    // Invalid UTF-8 in the identifier.
    var badText = try FrameCodec().encode(Self.frame)
    badText[4 + 36] = 0xFF
    #expect(throws: FrameError.malformed("the identifier is not valid UTF-8")) {
      try FrameCodec().decode(badText)
    }
  }

  @Test func randomBytesNeverCrashTheReader() {
    var generator = SystemRandomNumberGenerator()
    let valid = (try? FrameCodec().encode(Self.frame)) ?? []
    for round in 0..<2000 {
      var bytes = valid
      for _ in 0..<(1 + round % 8) {
        let index = Int.random(in: 0..<bytes.count, using: &generator)
        bytes[index] = UInt8.random(in: 0...255, using: &generator)
      }
      if round % 3 == 0 {
        bytes = bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)).map { $0 }
      }
      var reader = FrameReader(codec: FrameCodec(maximumFrameBytes: 4096))
      reader.append(bytes)
      do {
        while try reader.next() != nil {}
        try reader.finish()
      } catch {
        // Refused with an error: what hostile bytes should get.
      }
    }
  }

  @Test func contextEntriesRoundTripAndRefuseHostileCounts() throws {
    let context = SessionContext(entries: ["a": [1, 2], "b": []], version: 3)
    #expect(try SessionContext.decodeEntries(context.encodedEntries()) == context.entries)
    #expect(throws: FrameError.self) { try SessionContext.decodeEntries([0xFF, 0xFF, 0xFF, 0xFF]) }
    #expect(throws: FrameError.self) { try SessionContext.decodeEntries(context.encodedEntries() + [0]) }
  }
}
