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
}
