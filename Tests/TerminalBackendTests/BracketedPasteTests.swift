import TerminalInput
import Testing

@testable import TerminalBackend

/// The bytes between `ESC[200~` and `ESC[201~`, however the reads cut them.
@Suite struct BracketedPasteTests {
  static func paste(_ chunks: [[UInt8]], limit: Int = 1 << 24) -> (BracketedPaste, TerminalEvent) {
    var paste = BracketedPaste(limit: limit)
    for chunk in chunks { paste.append(chunk) }
    let event = paste.finish()
    return (paste, event)
  }

  @Test func theTextBeforeTheEndMarkerIsOneEvent() {
    let (paste, event) = Self.paste([Array("hello wörld 漢字\u{1B}[201~".utf8)])
    #expect(event == .paste("hello wörld 漢字"))
    #expect(paste.isComplete)
    #expect(paste.leftover.isEmpty)
  }

  @Test func theEndMarkerAndCharactersMayBeCutAnywhere() {
    let bytes = Array("ab😀c\u{1B}[201~".utf8)
    for cut in 1..<bytes.count {
      let (paste, event) = Self.paste([Array(bytes[..<cut]), Array(bytes[cut...])])
      #expect(event == .paste("ab😀c"), "cut at \(cut)")
      #expect(paste.isComplete)
    }
    // One byte at a time.
    #expect(Self.paste(bytes.map { [$0] }).1 == .paste("ab😀c"))
  }

  @Test func bytesAfterTheEndAreLeftForTheKeys() {
    let (paste, event) = Self.paste([Array("x\u{1B}[201~j".utf8), Array("k".utf8)])
    #expect(event == .paste("x"))
    #expect(paste.leftover == Array("jk".utf8))
  }

  @Test func lineEndsBecomeNewlines() {
    #expect(Self.paste([Array("a\rb\r\nc\nd\r\u{1B}[201~".utf8)]).1 == .paste("a\nb\nc\nd\n"))
  }

  @Test func anEscapeThatIsNotTheEndStaysText() {
    #expect(
      Self.paste([Array("\u{1B}[200~\u{1B}[20x\u{1B}\u{1B}[201~".utf8)]).1
        == .paste("\u{1B}[200~\u{1B}[20x\u{1B}"))
  }

  @Test func bytesThatAreNotUTF8BecomeReplacementCharacters() {
    #expect(Self.paste([[0x61, 0xFF, 0x62] + BracketedPaste.endMarker]).1 == .paste("a\u{FFFD}b"))
  }

  @Test func aPasteOverTheLimitIsCountedNotKept() {
    let chunk = [UInt8](repeating: 0x61, count: 400)
    let (paste, event) = Self.paste([chunk, chunk, chunk + BracketedPaste.endMarker + [0x71]], limit: 1000)
    #expect(event == .pasteTooLarge(byteCount: 1200))
    #expect(paste.leftover == [0x71])
    #expect(
      Self.paste([chunk, chunk + BracketedPaste.endMarker], limit: 800).1
        == .paste(String(repeating: "a", count: 800)))
  }

  @Test func aPasteThatNeverEndsIsWhatArrived() {
    let (paste, event) = Self.paste([Array("abc\u{1B}[20".utf8)])
    #expect(!paste.isComplete)
    #expect(event == .paste("abc\u{1B}[20"))
  }
}
