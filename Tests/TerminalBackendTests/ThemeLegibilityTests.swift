import TerminalScreen
import TerminalTheme
import Testing

@testable import TerminalBackend

/// Every shipped theme as the backend draws it on 8, 16 and 256 colours: the theme reduced to
/// what the mode shows, then turned into ncurses colour numbers, as `Terminal.draw` does.
@Suite struct ThemeLegibilityTests {
  static let names = ThemeCatalog.shippedNames
  static let modes: [ColorMode] = [.ansi8, .ansi16, .indexed256]

  /// The luma (0-255) a colour number shows as, the terminal's own colours taken as `light`
  /// or dark.
  static func luma(_ number: Int32, mode: ColorMode, isForeground: Bool, light: Bool) -> Int {
    if number < 0 { return isForeground ? (light ? 0 : 229) : (light ? 255 : 0) }
    let (red, green, blue) = TerminalColor.indexed(UInt8(number)).components ?? (0, 0, 0)
    return (299 * red + 587 * green + 114 * blue) / 1000
  }

  @Test(arguments: names, modes)
  func everyRoleKeepsItsTextApartFromItsBackground(name: String, mode: ColorMode) throws {
    let theme = try ThemeCatalog(userDirectory: nil).theme(name)
    let drawn = theme.reduced(to: mode.capability)
    let light = name == "light"
    for role in Theme.knownRoles {
      let style = drawn.style(for: role)
      let foreground = Self.luma(
        mode.number(for: style.foreground), mode: mode, isForeground: true, light: light)
      let background = Self.luma(
        mode.number(for: style.background), mode: mode, isForeground: false, light: light)
      #expect(
        abs(foreground - background) >= 50,
        "\(name) at \(mode): \(role) draws \(style.foreground) on \(style.background) (luma \(foreground) on \(background))"
      )
    }
  }

  @Test(arguments: names, modes)
  func selectionStaysVisible(name: String, mode: ColorMode) throws {
    let drawn = try ThemeCatalog(userDirectory: nil).theme(name).reduced(to: mode.capability)
    /// What a cell of `role` shows: its two colour numbers (swapped when reversed), and the
    /// other attributes.
    func look(_ role: StyleRole) -> [Int32] {
      let style = drawn.style(for: role)
      // The terminal's own colours as -1 (its foreground) and -2 (its background).
      func number(_ color: TerminalColor, own: Int32) -> Int32 {
        color == .terminalDefault ? own : mode.number(for: color)
      }
      let pair = [number(style.foreground, own: -1), number(style.background, own: -2)]
      var attributes = style.attributes
      attributes.remove(.reverse)
      return (style.attributes.contains(.reverse) ? pair.reversed() : pair) + [Int32(attributes.rawValue)]
    }
    for (selected, other) in [
      ("list.selected", "list"), ("list.selected.unfocused", "list"),
      ("list.selected", "list.selected.unfocused"),
      ("form.field.focused", "form.field"),
    ] as [(StyleRole, StyleRole)] {
      #expect(look(selected) != look(other), "\(name) at \(mode): \(selected) looks like \(other)")
    }
  }
}
