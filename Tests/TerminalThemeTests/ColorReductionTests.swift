import TerminalScreen
import Testing

@testable import TerminalTheme

@Suite struct ColorReductionTests {
  @Test func truecolorKeepsEverything() {
    let color = TerminalColor.rgb(red: 1, green: 2, blue: 3)
    #expect(color.reduced(to: .truecolor) == color)
  }

  @Test func rgbGoesToTheNearestOfThe256() {
    #expect(TerminalColor.rgb(red: 0x5F, green: 0x87, blue: 0xAF).reduced(to: .indexed256) == .indexed(67))
    #expect(TerminalColor.rgb(red: 0x80, green: 0x80, blue: 0x80).reduced(to: .indexed256) == .indexed(244))
    #expect(TerminalColor.rgb(red: 0, green: 0, blue: 0).reduced(to: .indexed256) == .indexed(16))
    #expect(TerminalColor.rgb(red: 255, green: 255, blue: 255).reduced(to: .indexed256) == .indexed(231))
    #expect(TerminalColor.rgb(red: 0x30, green: 0x30, blue: 0x30).reduced(to: .indexed256) == .indexed(236))
    #expect(TerminalColor.ansi(3).reduced(to: .indexed256) == .ansi(3))
  }

  @Test func everythingGoesToTheNearestOfThe16() {
    #expect(TerminalColor.rgb(red: 0xD5, green: 0x5E, blue: 0).reduced(to: .ansi16) == .ansi(1))
    #expect(TerminalColor.rgb(red: 250, green: 250, blue: 250).reduced(to: .ansi16) == .ansi(15))
    #expect(TerminalColor.indexed(196).reduced(to: .ansi16) == .ansi(9))
    #expect(TerminalColor.indexed(4).reduced(to: .ansi16) == .ansi(4))
    #expect(TerminalColor.indexed(232).reduced(to: .ansi16) == .ansi(0))
    #expect(TerminalColor.terminalDefault.reduced(to: .ansi16) == .terminalDefault)
  }

  @Test func withoutColourAttributesStayAndBackgroundHighlightsReverse() {
    let theme = Theme(
      name: "t",
      styles: [
        "default": TextStyle(foreground: .ansi(7), background: .ansi(0)),
        "list": TextStyle(foreground: .ansi(2), background: .ansi(0)),
        "list.selected": TextStyle(
          foreground: .ansi(0), background: .rgb(red: 0x87, green: 0xAF, blue: 0xD7)),
        "traffic.failed": TextStyle(foreground: .ansi(1), attributes: [.bold, .underline]),
      ]
    ).reduced(to: .none)
    #expect(theme.style(for: "default") == .plain)
    #expect(theme.style(for: "list") == .plain)
    #expect(theme.style(for: "list.selected") == TextStyle(attributes: .reverse))
    #expect(theme.style(for: "traffic.failed") == TextStyle(attributes: [.bold, .underline]))
  }

  @Test func capabilityFromTheEnvironment() {
    typealias Case = ([String: String], Int?, ColorCapability)
    let cases: [Case] = [
      (["TERM": "xterm-256color", "COLORTERM": "truecolor"], nil, .truecolor),
      (["TERM": "xterm", "COLORTERM": "24bit"], 256, .truecolor),
      (["TERM": "xterm-256color"], nil, .indexed256),
      (["TERM": "xterm-direct"], 16_777_216, .truecolor),
      (["TERM": "screen"], 256, .indexed256),
      (["TERM": "xterm"], nil, .ansi16),
      (["TERM": "linux"], 8, .ansi16),
      (["TERM": "vt100"], 0, .none),
      (["TERM": "vt100", "COLORTERM": "truecolor"], -1, .none),
      (["TERM": "dumb", "COLORTERM": "truecolor"], nil, .none),
      ([:], nil, .none),
      (["TERM": "xterm-256color", "COLORTERM": "truecolor", "NO_COLOR": "1"], 256, .none),
      (["TERM": "xterm-256color", "NO_COLOR": ""], nil, .indexed256),
    ]
    for (environment, colors, expected) in cases {
      #expect(
        ColorCapability.detect(environment: environment, terminalColors: colors) == expected,
        "\(environment) \(String(describing: colors))")
    }
  }
}
