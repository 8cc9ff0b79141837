import TerminalScreen
import Testing

@testable import TerminalTheme

@Suite struct ANSITextTests {
  @Test func stylesBecomeSelectGraphicRenditions() {
    #expect(TextStyle.plain.selectGraphicRendition == "\u{1B}[0m")
    #expect(
      TextStyle(foreground: .ansi(1), background: .ansi(12), attributes: [.bold, .reverse])
        .selectGraphicRendition == "\u{1B}[0;1;7;31;104m")
    #expect(
      TextStyle(foreground: .indexed(67), background: .rgb(red: 1, green: 2, blue: 3)).selectGraphicRendition
        == "\u{1B}[0;38;5;67;48;2;1;2;3m")
  }

  @Test func aFrameIsWrittenRowByRowWithStyleChangesOnly() {
    var screen = Screen(width: 5, height: 2)
    screen.write("日a", row: 0, column: 0, role: "title")
    screen.write("x", row: 1, column: 4, role: "traffic.failed")
    let theme = Theme(
      name: "t",
      styles: ["title": TextStyle(attributes: .bold), "traffic": TextStyle(foreground: .ansi(1))])
    let esc = "\u{1B}["
    #expect(
      screen.ansiText(theme: theme)
        == "\(esc)0;1m日a\(esc)0m  \(esc)0m\n\(esc)0m    \(esc)0;31mx\(esc)0m\n")
  }
}

@Suite struct ANSITextSafetyTests {
  @Test func aControlCharacterInACellNeverReachesTheTerminal() {
    var screen = Screen(width: 3, height: 1)
    screen[0, 0] = Cell("\u{1B}")
    screen[0, 1] = Cell("a\u{7}")
    #expect(screen.ansiText(theme: .fallback) == "\u{1B}[0m\u{FFFD}a\u{FFFD} \u{1B}[0m\n")
  }
}
