import Testing
import WormholeVocabulary

@Suite struct FileNameTests {
  @Test func canonicallyEquivalentNamesAreDifferentNames() {
    let composed = FileName("\u{E9}")
    let decomposed = FileName("e\u{301}")
    #expect("\u{E9}" == "e\u{301}")  // what String says
    #expect(composed != decomposed)
    #expect(Set([composed, decomposed]).count == 2)
    #expect([composed: 1, decomposed: 2][composed] == 1)
  }

  @Test func invalidUTF8IsKeptExactlyAndShownEscaped() {
    let name = FileName(bytes: [0x61, 0xFF, 0x62])
    #expect(name.string == nil)
    #expect(name.bytes == [0x61, 0xFF, 0x62])
    #expect(name.lossyText == "a\\x{ff}b")
    #expect(name.displayField == "\"a\\x{ff}b\"")
    // A name that spells the escape with a real backslash looks different.
    #expect(FileName("a\\x{ff}b").displayField == "\"a\\\\x{ff}b\"")
    #expect(name != FileName("a\u{FFFD}b"))
  }

  @Test func validBytesBecomeTextAndEqualTheSameText() {
    #expect(FileName(bytes: Array("日本".utf8)) == FileName("日本"))
    #expect(FileName(bytes: Array("日本".utf8)).hashValue == FileName("日本").hashValue)
  }

  @Test func aNameStartingWithNULOrHoldingAnyByteRoundTrips() {
    for bytes: [UInt8] in [[0], [0, 0x61], [0xFF, 0xFE], [0x30, 0x30], Array(0...255)] {
      let name = FileName(bytes: bytes)
      #expect(name.bytes == bytes)
      #expect(name.byteCount == bytes.count)
      #expect(name.withBytes { Array($0) } == bytes)
    }
    #expect(FileName(bytes: [0x30]) != FileName(bytes: [0]))
    #expect(FileName("\u{0}ff") == FileName(bytes: [0, 0x66, 0x66]))
    #expect(FileName("\u{0}ff") != FileName(bytes: [0xFF]))
    #expect(MemoryLayout<FileName>.size == 16)
  }

  @Test func suffixIsBytesNotGraphemes() {
    let name = FileName("x\u{600}.archive")
    #expect(!"x\u{600}.archive".hasSuffix(".archive"))  // graphemes: U+0600 prepends to "."
    #expect(name.hasSuffix(".archive"))
    #expect(name.droppingLast(8) == FileName("x\u{600}"))
  }

  @Test func sortsByBytes() {
    let names: [FileName] = ["b", "a", FileName(bytes: [0xFF]), "B", "\u{E9}"]
    #expect(names.sorted().map(\.bytes) == [[0x42], [0x61], [0x62], [0xC3, 0xA9], [0xFF]])
  }

  /// Equality and order are one comparison of the UTF-8 for names that are text, eight bytes at a
  /// time: the same as comparing the bytes one by one, for short (inline) and long names,
  /// prefixes, a difference inside a word or in the tail, bytes above 0x7F, and names that are
  /// not text.
  @Test(
    arguments: [
      ("", "a"), ("a", "a"), ("a", "b"), ("ab", "a"), ("m1.archive", "m10.archive"),
      ("/tmp/a/long/directory/path/beyond/15/bytes", "/tmp/a/long/directory/path/beyond/15/byteS"),
      ("/tmp/a/long/directory/path/beyond/15/bytes", "/tmp/a/long/directory/path/beyond/15/bytes"),
      ("abcdefghij", "abcdefgHij"), ("abcdefghijklmnopq", "abcdefghijklmnoPq"), ("abcdefgh", "abcdefghi"),
      ("\u{E9}", "e\u{301}"), ("\u{E9}", "\u{E9}x"), ("z", "\u{E9}"), ("\u{10FFFF}", "\u{FFFF}"),
    ] as [(String, String)])
  func equalityAndOrderAreTheBytes(_ names: (String, String)) {
    let pairs: [(FileName, FileName)] = [
      (FileName(names.0), FileName(names.1)),
      (FileName(bytes: Array(names.0.utf8)), FileName(names.1 + "")),
      (FileName(bytes: Array(names.0.utf8) + [0xFF]), FileName(names.1)),
    ]
    for (left, right) in pairs {
      #expect((left == right) == (left.bytes == right.bytes), "\(left) == \(right)")
      #expect((left < right) == left.bytes.lexicographicallyPrecedes(right.bytes), "\(left) < \(right)")
      #expect((right < left) == right.bytes.lexicographicallyPrecedes(left.bytes), "\(right) < \(left)")
      if left == right { #expect(left.hashValue == right.hashValue) }
    }
  }

  @Test func displayEscapesWhatATerminalWouldActOn() {
    #expect(FileName("plain").displayField == "plain")
    #expect(FileName("a\u{1B}[2Jb").displayField == "\"a\\u{1b}[2Jb\"")
  }
}
