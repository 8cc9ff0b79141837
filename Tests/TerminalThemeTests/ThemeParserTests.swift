import TerminalScreen
import Testing

@testable import TerminalTheme

@Suite struct ThemeParserTests {
  func parse(_ text: String) throws(ThemeError) -> Theme {
    try ThemeParser.parse(text, file: "test.theme", defaultName: "test")
  }

  @Test func readsColoursAttributesCommentsAndTheName() throws {
    let theme = try parse(
      """
      # A comment line
      name = mine

      default = fg:default bg:black   # trailing comment
      traffic.failed = fg:#d55e00 bg:bright-red bold underline
      list.selected = reverse fg:color(33)
      list = inherit
      """)
    #expect(theme.name == "mine")
    #expect(theme.style(for: "default") == TextStyle(foreground: .terminalDefault, background: .ansi(0)))
    #expect(
      theme.style(for: "traffic.failed")
        == TextStyle(
          foreground: .rgb(red: 0xD5, green: 0x5E, blue: 0), background: .ansi(9),
          attributes: [.bold, .underline]))
    #expect(theme.style(for: "list.selected") == TextStyle(foreground: .indexed(33), attributes: .reverse))
    #expect(theme.style(for: "list.selected.unfocused") == theme.style(for: "list.selected"))
    #expect(theme.inherited == ["list"])
    #expect(theme.styles["list"] == nil)
    #expect(try parse("").name == "test")
  }

  @Test func everyColourNameAndItsBrightForm() throws {
    let names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]
    for (index, name) in names.enumerated() {
      #expect(try parse("title = fg:\(name)").style(for: "title").foreground == .ansi(UInt8(index)))
      #expect(
        try parse("title = fg:bright-\(name)").style(for: "title").foreground == .ansi(UInt8(index + 8)))
    }
  }

  @Test(arguments: [
    ("\n\n\n\n\n\n\n\n\n\n\ntitle = fg:blu", "test.theme:12: unknown colour 'blu'"),
    ("title = fg:#12345", "test.theme:1: unknown colour '#12345'"),
    ("title = fg:#12345g", "test.theme:1: unknown colour '#12345g'"),
    ("title = bg:color(256)", "test.theme:1: unknown colour 'color(256)'"),
    ("title = bg:color(-1)", "test.theme:1: unknown colour 'color(-1)'"),
    ("title = blink", "test.theme:1: unknown word 'blink'"),
    ("# ok\ntitel = bold", "test.theme:2: unknown role 'titel'"),
    ("title bold", "test.theme:1: expected 'role = fg:COLOUR bg:COLOUR ATTRIBUTES', found 'title bold'"),
    (
      "title = bold\ntitle = dim", "test.theme:2: role 'title' is already given above; keep one line per role"
    ),
    (
      "# a comment\ntitle = bold\nthis is = not a theme [",
      "test.theme:3: expected 'role = fg:COLOUR bg:COLOUR ATTRIBUTES', found 'this is = not a theme ['"
    ),
    (
      "[colours]\ntitle = bold",
      "test.theme:1: expected 'role = fg:COLOUR bg:COLOUR ATTRIBUTES', found '[colours]'"
    ),
    (" = bold", "test.theme:1: expected 'role = fg:COLOUR bg:COLOUR ATTRIBUTES', found '= bold'"),
    ("title = fg:", "test.theme:1: unknown colour ''"),
    ("title = fg:red fg:blue", "test.theme:1: 'fg:' is given twice; keep one"),
    ("\n\nborder = bg:red bold bg:blue", "test.theme:3: 'bg:' is given twice; keep one"),
    ("list = inherit bold", "test.theme:1: 'inherit' stands alone"),
    ("default = inherit", "test.theme:1: 'default' has no parent to inherit from"),
    ("name =\ntitle = bold", "test.theme:1: 'name =' needs a name"),
  ])
  func malformedThemesSayWhereAndWhat(text: String, message: String) {
    do {
      _ = try parse(text)
      Issue.record("parsed \(text)")
    } catch {
      #expect(error.description.hasPrefix(message), "\(error.description)")
    }
  }
}

@Suite struct KnownRoleTests {
  @Test func everyKnownRoleFallsBackThroughKnownRoles() {
    let known = Set(Theme.knownRoles)
    #expect(known.count == Theme.knownRoles.count, "a role is listed twice")
    for role in Theme.knownRoles {
      if let parent = role.parent {
        #expect(known.contains(parent), "\(role) falls back to unknown \(parent)")
      }
    }
  }
}
