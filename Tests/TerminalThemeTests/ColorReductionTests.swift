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
    #expect(TerminalColor.rgb(red: 0xD5, green: 0x5E, blue: 0).reduced(to: .ansi16) == .ansi(9))
    #expect(TerminalColor.rgb(red: 250, green: 250, blue: 250).reduced(to: .ansi16) == .ansi(15))
    #expect(TerminalColor.indexed(196).reduced(to: .ansi16) == .ansi(9))
    #expect(TerminalColor.indexed(4).reduced(to: .ansi16) == .ansi(4))
    #expect(TerminalColor.indexed(232).reduced(to: .ansi16) == .ansi(0))
    #expect(TerminalColor.terminalDefault.reduced(to: .ansi16) == .terminalDefault)
  }

  /// Lightness as well as hue: a light colour never reduces to black, a dark one never to white.
  @Test func the16AndThe8KeepLightColoursLight() {
    let steelBlue = TerminalColor.rgb(red: 0x87, green: 0xAF, blue: 0xD7)
    #expect(steelBlue.reduced(to: .ansi16) == .ansi(14))
    #expect(steelBlue.reduced(to: .ansi8) == .ansi(6))
    #expect(TerminalColor.rgb(red: 0xA8, green: 0xA8, blue: 0xA8).reduced(to: .ansi16) == .ansi(8))
    #expect(TerminalColor.rgb(red: 0xA8, green: 0xA8, blue: 0xA8).reduced(to: .ansi8) == .ansi(7))
    #expect(TerminalColor.rgb(red: 0xD0, green: 0xD0, blue: 0xD0).reduced(to: .ansi16) == .ansi(7))
    #expect(TerminalColor.rgb(red: 0x30, green: 0x30, blue: 0x30).reduced(to: .ansi8) == .ansi(0))
    #expect(TerminalColor.ansi(8).reduced(to: .ansi8) == .ansi(7))
    #expect(TerminalColor.ansi(15).reduced(to: .ansi8) == .ansi(7))
    #expect(TerminalColor.ansi(12).reduced(to: .ansi8) == .ansi(4))
    #expect(TerminalColor.rgb(red: 0x87, green: 0xD7, blue: 0x87).reduced(to: .ansi8) == .ansi(2))
    #expect(TerminalColor.rgb(red: 0x00, green: 0x5F, blue: 0x00).reduced(to: .ansi16) == .ansi(2))
  }

  /// On 8 colours the dark theme's selection bar, status line and footer keep their text
  /// apart from their background, and the title never goes black on the dark background.
  @Test func theDarkThemeOn8ColoursStaysLegible() {
    let theme = ThemeCatalog.shippedDefault.reduced(to: .ansi8)
    #expect(theme.style(for: "list.selected").foreground == .ansi(0))
    #expect(theme.style(for: "list.selected").background == .ansi(6))
    #expect(theme.style(for: "title").foreground == .ansi(6))
    #expect(theme.style(for: "border").foreground == .ansi(7))
    #expect(theme.style(for: "list.selected.unfocused").background == .ansi(7))
    #expect(theme.style(for: "list.selected.unfocused").foreground == .ansi(0))
    #expect(theme.style(for: "footer").background == .ansi(7))
    #expect(theme.style(for: "footer").foreground == .ansi(0))
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
      (["TERM": "xterm"], nil, .ansi8),
      (["TERM": "xterm-16color"], nil, .ansi16),
      (["TERM": "rxvt"], 16, .ansi16),
      (["TERM": "linux"], 8, .ansi8),
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
