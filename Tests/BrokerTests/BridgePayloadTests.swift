import Foundation
import Testing

@testable import wormhole_tui

/// The bridge's mailbox payload is built as bytes, its archive's base64 written straight into
/// them: the same base64 as Foundation's, for every length of the last group.
struct BridgePayloadTests {
  @Test func theArchivesBase64IsFoundationsForEveryLength() {
    var generator = SystemRandomNumberGenerator()
    for count in Array(0..<12) + [255, 256, 257, 4096] {
      let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
      var out: [UInt8] = Array("x".utf8)
      BridgePublisher.appendBase64(bytes, to: &out)
      #expect(
        String(decoding: out.dropFirst(), as: UTF8.self) == Data(bytes).base64EncodedString(),
        "\(count) bytes")
    }
    var all: [UInt8] = []
    BridgePublisher.appendBase64(Array(0...255), to: &all)
    #expect(String(decoding: all, as: UTF8.self) == Data(Array(0...255)).base64EncodedString())
  }
}
