import ShippedThemes
import TerminalScreen
import Testing

@testable import TerminalTheme

/// Every shipped theme at every level a terminal may have: text stays apart from its
/// background, no text takes the terminal's own background colour, and the selection stays
/// visible, at 8, 16 and 256 colours and with none.
@Suite struct ThemeLevelTests {
  static let names = ThemeCatalog.shippedNames
  static let levels: [ColorCapability] = [.ansi8, .ansi16, .indexed256, .none]

  /// The colours a cell of `style` shows, the terminal's own taken as `theme` (as loaded, before
  /// reduction) expects them, and swapped when reversed.
  static func shown(_ style: TextStyle, in theme: Theme) -> (text: (Int, Int, Int), ground: (Int, Int, Int)) {
    let terminal = theme.terminalColors
    let foreground = style.foreground.components ?? terminal.foreground
    let background = style.background.components ?? terminal.background
    return style.attributes.contains(.reverse) ? (background, foreground) : (foreground, background)
  }

  @Test(arguments: names, levels)
  func textStaysApartFromItsBackground(name: String, level: ColorCapability) throws {
    let original = try ThemeCatalog(userDirectory: nil).theme(name)
    let theme = original.reduced(to: level)
    let terminalBackground = TerminalColor.luma(original.terminalColors.background)
    for role in Theme.knownRoles {
      let style = theme.style(for: role)
      if level == .none {
        #expect(style.foreground == .terminalDefault && style.background == .terminalDefault)
        continue
      }
      let (text, ground) = Self.shown(style, in: original)
      #expect(
        abs(TerminalColor.luma(text) - TerminalColor.luma(ground)) >= Theme.minimumTextContrast,
        "\(name) at \(level): \(role) is \(style.foreground) on \(style.background) \(text) \(ground)")
      if style.background == .terminalDefault && !style.attributes.contains(.reverse) {
        #expect(
          abs(TerminalColor.luma(text) - terminalBackground) >= Theme.minimumTextContrast,
          "\(name) at \(level): \(role) (\(style.foreground)) takes the terminal's background colour")
      }
    }
  }

  @Test(arguments: names, levels)
  func theSelectionStaysVisible(name: String, level: ColorCapability) throws {
    let original = try ThemeCatalog(userDirectory: nil).theme(name)
    let theme = original.reduced(to: level)
    func look(_ role: StyleRole) -> String {
      let style = theme.style(for: role)
      let (text, ground) = Self.shown(style, in: original)
      var attributes = style.attributes
      attributes.remove(.reverse)
      // Without colour, reverse is what shows the bar.
      let reversed = level == .none && style.attributes.contains(.reverse)
      return "\(text) \(ground) \(attributes.rawValue) \(reversed)"
    }
    for (selected, other) in [
      ("list.selected", "list"), ("list.selected.unfocused", "list"), ("form.field.focused", "form.field"),
    ] as [(StyleRole, StyleRole)] {
      #expect(look(selected) != look(other), "\(name) at \(level): \(selected) looks like \(other)")
    }
  }

  /// NO_COLOR keeps bold and reverse: the selection bar is reversed, errors stay bold.
  @Test(arguments: names)
  func withoutColourBoldAndReverseStay(name: String) throws {
    let original = try ThemeCatalog(userDirectory: nil).theme(name)
    let theme = original.reduced(to: .none)
    #expect(theme.style(for: "list.selected").attributes.contains(.reverse))
    for role in Theme.knownRoles {
      let kept = original.style(for: role).attributes.intersection([.bold, .reverse, .underline])
      #expect(theme.style(for: role).attributes.isSuperset(of: kept), "\(name): \(role) lost \(kept)")
    }
  }
}
