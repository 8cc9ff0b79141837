import ArchivedValues
import TerminalScreen
import Testing

/// `DisplayText` escapes what the screen and the backend treat as control characters, from the
/// one definition, and the bidirectional controls besides.
@Suite struct DisplayTextControlTests {
  @Test func whatTheScreenCallsControlIsEscaped() {
    let bidirectional = Set<UInt32>(
      [0x061C, 0x200E, 0x200F] + Array(0x202A...0x202E) + Array(0x2066...0x2069))
    for value: UInt32 in 0...0x3000 {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let expected = TerminalWidth.isControl(scalar: scalar) || bidirectional.contains(value)
      #expect(DisplayText.isActive(scalar) == expected, "U+\(String(value, radix: 16))")
      if TerminalWidth.isControl(scalar: scalar) {
        #expect(!DisplayText.escaped("a" + String(scalar)).unicodeScalars.contains(scalar))
      }
    }
  }
}
