import TerminalInput
import Testing

@testable import TerminalBackend

/// ncurses key codes by number (its ABI: `KEY_UP` is 0o403 ...), decoded without a terminal.
@Suite struct KeyDecodingTests {
  @Test func functionKeyCodes() {
    let expected: [(UInt32, Key)] = [
      (0o402, .down), (0o403, .up), (0o404, .left), (0o405, .right), (0o406, .home), (0o407, .backspace),
      (0o411, .function(1)), (0o424, .function(12)), (0o507, .function(63)), (0o512, .delete),
      (0o513, .insert), (0o522, .pageDown), (0o523, .pageUp), (0o527, .enter), (0o541, .backTab),
      (0o550, .end),
    ]
    for (code, key) in expected {
      #expect(KeyDecoding.key(functionKey: code) == key, "code \(String(code, radix: 8))")
    }
  }

  @Test func unknownFunctionKeyCodesAreDropped() {
    // KEY_RESIZE, KEY_MOUSE and a code past the named ones.
    #expect(KeyDecoding.key(functionKey: 0o632) == nil)
    #expect(KeyDecoding.key(functionKey: 0o631) == nil)
    #expect(KeyDecoding.key(functionKey: 0o1000) == nil)
  }

  @Test func controlCharacters() {
    #expect(KeyDecoding.key(character: 0x0D) == .enter)
    #expect(KeyDecoding.key(character: 0x0A) == .enter)
    #expect(KeyDecoding.key(character: 0x09) == .tab)
    #expect(KeyDecoding.key(character: 0x1B) == .escape)
    #expect(KeyDecoding.key(character: 0x7F) == .backspace)
    #expect(KeyDecoding.key(character: 0x08) == .backspace)
    #expect(KeyDecoding.key(character: 0x04) == .control("d"))
    #expect(KeyDecoding.key(character: 0x15) == .control("u"))
    #expect(KeyDecoding.key(character: 0x03) == .control("c"))
    #expect(KeyDecoding.key(character: 0x1F) == .control("_"))
    #expect(KeyDecoding.key(character: 0x00) == .control("@"))
    #expect(KeyDecoding.key(character: 0x9B) == nil)
  }

  @Test func printableCharacters() {
    #expect(KeyDecoding.key(character: 0x6A) == .character("j"))
    #expect(KeyDecoding.key(character: 0x20) == .character(" "))
    #expect(KeyDecoding.key(character: 0x6F22) == .character("漢"))
    #expect(KeyDecoding.key(character: 0x1F44D) == .character("👍"))
    #expect(KeyDecoding.key(character: 0xD800) == nil)  // not a scalar
  }

  @Test func everyControlCodeReadsBackThroughTheNotation() throws {
    for code in UInt32(0)...0x1F {
      guard let key = KeyDecoding.key(character: code) else { continue }
      #expect(try KeyNotation.keys(from: KeyNotation.text(for: key)) == [key], "code \(code)")
    }
  }
}
