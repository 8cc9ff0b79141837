import Testing
import WormholeVocabulary

/// The JSON pieces every JSON writer shares: strings or `null`, and file names with their bytes.
@Suite struct JSONTextTests {
  @Test func aMissingStringIsNull() {
    #expect(JSONText.string(orNull: nil) == "null")
    #expect(JSONText.string(orNull: "a\u{1B}") == "\"a\\u001b\"")
  }

  @Test func aNameThatIsNotTextKeepsItsBytes() {
    let text = FileName("é.archive")
    #expect(JSONText.name(text) == "\"é.archive\"")
    #expect(JSONText.nameBytes(text) == "null")
    let bytes = FileName(bytes: [0x61, 0xFF, 0x0A])
    #expect(JSONText.nameBytes(bytes) == "\"61ff0a\"")
    #expect(JSONText.name(bytes) == JSONText.string(bytes.lossyText))
  }

  @Test func hexReadsBackWhatNameBytesWrites() {
    let name = FileName(bytes: [0x00, 0x61, 0xFF, 0x0A])
    let written = JSONText.nameBytes(name)
    #expect(JSONText.bytes(hex: written.dropFirst().dropLast()) == name.bytes)
    #expect(JSONText.bytes(hex: "") == [])
    #expect(JSONText.bytes(hex: "61FF") == [0x61, 0xFF])
    #expect(JSONText.bytes(hex: "61FF", lowercaseOnly: true) == nil)
    #expect(JSONText.bytes(hex: "61f") == nil)
    #expect(JSONText.bytes(hex: "6g") == nil)
  }
}
