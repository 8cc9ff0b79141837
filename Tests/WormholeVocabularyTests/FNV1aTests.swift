import Testing
import WormholeVocabulary

/// The one FNV-1a: the published test vectors, byte by byte and eight bytes at a time.
@Suite struct FNV1aTests {
  @Test func publishedVectors() {
    let vectors: [(String, UInt64)] = [
      ("", 0xcbf2_9ce4_8422_2325), ("a", 0xaf63_dc4c_8601_ec8c), ("foobar", 0x8594_4171_f739_67e8),
    ]
    for (text, expected) in vectors {
      var hash = FNV1a()
      hash.add(text.utf8)
      #expect(hash.value == expected, "\(text)")
    }
  }

  @Test func aNumberIsItsEightBytesLeastSignificantFirst() {
    var bytes = FNV1a()
    bytes.add([0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])
    var number = FNV1a()
    number.add(littleEndian: 0x0102_0304_0506_0708)
    #expect(bytes == number)
  }
}
