import FleetProtocol
import Foundation
import Testing
import WormholeVocabulary

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

/// A mailbox's topic is made with its directory's part kept from one change to the next: the
/// topic ``BridgeTopics`` names, for every kind of name, in any order of directories.
struct BridgeTopicTests {
  @Test func aMailboxTopicIsBridgeTopicsOwnWithTheDirectoryPartKept() {
    let directories: [FileName] = [
      "/tmp/root", "/tmp/a b/+#", FileName(bytes: [0x2F, 0xFF, 0x25]), "/tmp/root/sub", "/tmp/root",
    ]
    let identifiers: [FileName] = ["m1", "x/y+z#", FileName(bytes: [0x00, 0x80]), "é"]
    var prefixes: [FileName: String] = [:]
    for machine in ["bench0", "a/b+c"] {
      prefixes = [:]
      for directory in directories {
        for identifier in identifiers {
          #expect(
            BridgePublisher.mailboxTopic(
              machine: machine, directory: directory, identifier: identifier, prefixes: &prefixes)
              == BridgeTopics.mailbox(machine: machine, directory: directory, identifier: identifier))
        }
      }
    }
    #expect(prefixes.count == 4)
  }
}
