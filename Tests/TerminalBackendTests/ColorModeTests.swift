import TerminalTheme
import Testing

@testable import TerminalBackend

@Suite struct ColorModeTests {
  @Test func detectsFromTheColourCount() {
    #expect(ColorMode.detect(colors: 0, noColor: nil) == .none)
    #expect(ColorMode.detect(colors: 8, noColor: nil) == .ansi8)
    #expect(ColorMode.detect(colors: 16, noColor: nil) == .ansi16)
    #expect(ColorMode.detect(colors: 256, noColor: nil) == .indexed256)
    #expect(ColorMode.detect(colors: 16_777_216, noColor: nil) == .direct)
    #expect(ColorMode.detect(colors: 16_777_216, noColor: nil).capability == .truecolor)
    #expect(ColorMode.detect(colors: 8, noColor: nil).capability == .ansi8)
  }

  @Test func noColorSetAndNotEmptyTurnsColourOff() {
    #expect(ColorMode.detect(colors: 256, noColor: "1") == .none)
    #expect(ColorMode.detect(colors: 256, noColor: "") == .indexed256)
    #expect(ColorMode.none.number(for: .ansi(1)) == -1)
  }

  @Test func theDefaultColourIsMinusOneEverywhere() {
    for mode in [ColorMode.none, .ansi8, .ansi16, .indexed256, .direct] {
      #expect(mode.number(for: .terminalDefault) == -1)
    }
  }

  @Test func reducesToWhatTheModeShows() {
    let azure = TerminalColor.rgb(red: 0, green: 135, blue: 255)
    #expect(ColorMode.indexed256.number(for: azure) == 33)
    #expect(ColorMode.indexed256.number(for: .rgb(red: 128, green: 128, blue: 128)) == 244)
    #expect(ColorMode.indexed256.number(for: .indexed(200)) == 200)
    #expect(ColorMode.indexed256.number(for: .ansi(9)) == 9)
    #expect(ColorMode.ansi16.number(for: .rgb(red: 250, green: 10, blue: 10)) == 9)
    #expect(ColorMode.ansi16.number(for: .indexed(196)) == 9)
    #expect(ColorMode.ansi16.number(for: .ansi(12)) == 12)
    #expect(ColorMode.ansi8.number(for: .ansi(9)) == 1)
    // With 8 colours a light colour is never black: bright black and light greys become white.
    #expect(ColorMode.ansi8.number(for: .rgb(red: 0x87, green: 0xAF, blue: 0xD7)) == 6)
    #expect(ColorMode.ansi8.number(for: .rgb(red: 0xA8, green: 0xA8, blue: 0xA8)) == 7)
    #expect(ColorMode.ansi8.number(for: .rgb(red: 0x26, green: 0x26, blue: 0x26)) == 0)
    #expect(ColorMode.direct.number(for: azure) == 0x0087FF)
    #expect(ColorMode.direct.number(for: .ansi(2)) == 2)
    #expect(ColorMode.direct.number(for: .indexed(16)) == 8)  // black, kept out of the ANSI numbers
    #expect(ColorMode.direct.number(for: .indexed(231)) == 0xFFFFFF)
  }
}
