import DeviceSession
import PeerSession
import Testing

@Suite struct PeerFrameTests {
  /// Both formats' errors say their messages through ``FrameError``, each naming its frames.
  @Test func frameErrorsNameTheirFormat() {
    #expect(
      PeerFrameError.oversized(bytes: 9, limit: 4).description
        == "a peer frame of 9 bytes was refused: at most 4 are accepted")
    #expect(
      PeerFrameError.truncated(needed: 3, available: 1).description
        == "a peer frame was cut short: 3 more bytes were needed, 1 came")
    #expect(PeerFrameError.malformed("unknown kind 99").description == "not a peer frame: unknown kind 99")
    #expect(
      FrameError.oversized(bytes: 9, limit: 4).description
        == "a frame of 9 bytes was refused: at most 4 are accepted")
    #expect(
      FrameError.truncated(needed: 3, available: 1).description
        == "a frame was cut short: 3 more bytes were needed, 1 came")
    #expect(FrameError.malformed("unknown kind 99").description == "not a device frame: unknown kind 99")
    #expect(PeerFrameError(.malformed("x")) == .malformed("x"))
    #expect(PeerFrameError(.malformed("x")) != .malformed("y"))
  }

  static func source() throws -> PeerIdentity {
    try #require(PeerIdentity(name: try PeerName("phöne"), id: 0x1234_5678))
  }

  static func frame() throws -> PeerFrame {
    PeerFrame(
      kind: .resourceStart, flags: [.reliable], source: try source(), destination: 99, sequence: 7,
      value: 1 << 40, text: "photo.jpg", payload: Array(0..<200).map { UInt8($0) })
  }

  @Test func framesOfEveryKindRoundTripThroughAStream() throws {
    let codec = PeerFrameCodec()
    let base = try Self.frame()
    var frames = PeerFrame.Kind.allCases.map { kind in
      var frame = base
      frame.kind = kind
      return frame
    }
    frames.append(
      PeerAdvertisement(
        peer: try Self.source(), service: try ServiceType("chat"), info: try DiscoveryInfo(["a": "b"])
      ).frame)
    var encoded: [UInt8] = []
    for frame in frames {
      let bytes = try codec.encode(frame)
      #expect(try codec.decode(bytes) == frame)
      encoded += bytes
    }
    var reader = PeerFrameReader()
    var decoded: [PeerFrame] = []
    for byte in encoded {
      reader.append([byte])
      while let frame = try reader.next() { decoded.append(frame) }
    }
    #expect(decoded == frames)
    try reader.finish()
  }

  @Test func listsAndAdvertisementsRoundTrip() throws {
    let other = try #require(PeerIdentity(name: try PeerName("watch"), id: 5))
    let identities = [try Self.source(), other]
    #expect(try PeerFrameCodec.decodeIdentities(PeerFrameCodec.encodeIdentities(identities)) == identities)
    let info = try DiscoveryInfo(["room": "lobby", "v": "2"])
    #expect(try PeerFrameCodec.decodeInfo(PeerFrameCodec.encodeInfo(info)) == info)
    let advertisement = PeerAdvertisement(peer: other, service: try ServiceType("chat"), info: info)
    #expect(try PeerAdvertisement(frame: advertisement.frame) == advertisement)
    var badService = advertisement.frame
    badService.text = "Chat"
    #expect(throws: PeerFrameError.self) { try PeerAdvertisement(frame: badService) }
  }

  @Test func anOversizedLengthIsRefusedBeforeItsBytesArrive() throws {
    var reader = PeerFrameReader(codec: PeerFrameCodec(maximumFrameBytes: 1000))
    reader.append([0x7F, 0xFF, 0xFF, 0xFF])
    #expect(throws: PeerFrameError.oversized(bytes: 0x7FFF_FFFF, limit: 1000)) { try reader.next() }
    #expect(throws: PeerFrameError.self) { try PeerFrameCodec(maximumFrameBytes: 100).encode(Self.frame()) }
    var longText = try Self.frame()
    longText.text = String(repeating: "x", count: 256)
    #expect(throws: PeerFrameError.self) { try PeerFrameCodec().encode(longText) }
  }

  @Test func aStreamThatEndsInsideAFrameIsTruncated() throws {
    let encoded = try PeerFrameCodec().encode(Self.frame())
    var reader = PeerFrameReader()
    reader.append(encoded.dropLast(3))
    #expect(try reader.next() == nil)
    #expect(throws: PeerFrameError.truncated(needed: encoded.count - 4, available: encoded.count - 7)) {
      try reader.finish()
    }
    #expect(throws: PeerFrameError.self) { try PeerFrameCodec().decode(Array(encoded.dropLast())) }
    #expect(throws: PeerFrameError.self) { try PeerFrameCodec().decode(encoded + [0]) }
  }

  @Test func garbageIsRefusedNeverTrusted() throws {
    let encoded = try PeerFrameCodec().encode(Self.frame())
    var badKind = encoded
    badKind[7] = 99
    #expect(throws: PeerFrameError.malformed("unknown kind 99")) { try PeerFrameCodec().decode(badKind) }
    var badVersion = encoded
    badVersion[6] = 2
    #expect(throws: PeerFrameError.malformed("version 2 is not supported (1 is)")) {
      try PeerFrameCodec().decode(badVersion)
    }
    var badMagic = encoded
    badMagic[5] = UInt8(ascii: "D")
    #expect(throws: PeerFrameError.self) { try PeerFrameCodec().decode(badMagic) }
    // A name length that disagrees with the frame's length.
    var badLengths = encoded
    badLengths[9] = 0xFF
    #expect(throws: PeerFrameError.self) { try PeerFrameCodec().decode(badLengths) }
    // Source id 0 names no peer.
    var zeroID = try PeerFrameCodec().encode(Self.frame())
    for index in 12..<20 { zeroID[index] = 0 }
    #expect(throws: PeerFrameError.malformed("a peer id is 0")) { try PeerFrameCodec().decode(zeroID) }
    // Invalid UTF-8 in the source name.
    var badText = encoded
    badText[4 + 44] = 0xFF
    #expect(throws: PeerFrameError.malformed("the source name is not valid UTF-8")) {
      try PeerFrameCodec().decode(badText)
    }
    #expect(throws: PeerFrameError.self) {
      try PeerFrameCodec().decode(
        Array("GET / HTTP/1.1\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n".utf8))
    }
  }

  @Test func listsWithCountsBeyondTheirBytesAreRefusedUnallocated() {
    // 65535 identities announced, two bytes of them present.
    #expect(throws: PeerFrameError.truncated(needed: 655_350, available: 2)) {
      try PeerFrameCodec.decodeIdentities([0xFF, 0xFF, 0, 0])
    }
    #expect(throws: PeerFrameError.self) { try PeerFrameCodec.decodeInfo([0xFF, 0xFF]) }
    // An empty name inside a list breaks the peer-name rule.
    #expect(throws: PeerFrameError.self) {
      try PeerFrameCodec.decodeIdentities([0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0])
    }
    // A repeated key.
    #expect(throws: PeerFrameError.malformed("the discovery info repeats a key")) {
      try PeerFrameCodec.decodeInfo([0, 2, 0, 1, 97, 0, 0, 0, 1, 97, 0, 0])
    }
    #expect(throws: PeerFrameError.self) { try PeerFrameCodec.decodeIdentities([0, 0, 1]) }
  }

  @Test func mutatedAndCutFramesNeverCrashTheReader() throws {
    var generator = SystemRandomNumberGenerator()
    let members = PeerFrame(
      kind: .members, source: try Self.source(),
      payload: PeerFrameCodec.encodeIdentities([
        try Self.source(), try #require(PeerIdentity(name: try PeerName("b"), id: 3)),
      ]))
    let valid = try PeerFrameCodec().encode(Self.frame()) + PeerFrameCodec().encode(members)
    var refused = 0
    for round in 0..<3000 {
      var bytes = valid
      for _ in 0..<(1 + round % 8) {
        let index = Int.random(in: 0..<bytes.count, using: &generator)
        bytes[index] = UInt8.random(in: 0...255, using: &generator)
      }
      if round % 3 == 0 { bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator))) }
      var reader = PeerFrameReader(codec: PeerFrameCodec(maximumFrameBytes: 4096))
      reader.append(bytes)
      do {
        while let frame = try reader.next() {
          // A frame that decodes carries lists that decode or are refused, never trusted.
          _ = try? PeerFrameCodec.decodeIdentities(frame.payload)
          _ = try? PeerFrameCodec.decodeInfo(frame.payload)
        }
        try reader.finish()
      } catch {
        refused += 1
      }
    }
    #expect(refused > 1000)
  }
}
