import Foundation
import TerminalScreen
import Testing

@testable import TerminalTheme

@Suite struct ThemeCatalogTests {
  /// A fresh directory for one test's user themes, removed afterwards.
  final class UserThemes {
    let path: String
    init() throws {
      path =
        FileManager.default.temporaryDirectory
        .appendingPathComponent("themes-\(UInt64.random(in: 0...UInt64.max))").path
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func write(_ name: String, _ text: String) throws {
      try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
    }
  }

  @Test func theUserDirectoryComesFromXDGConfigHomeElseHome() {
    #expect(
      ThemeCatalog(environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"]).userDirectory
        == "/c/wormhole-tui/themes")
    #expect(
      ThemeCatalog(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]).userDirectory
        == "/h/.config/wormhole-tui/themes")
    #expect(ThemeCatalog(environment: [:]).userDirectory == nil)
  }

  @Test func userThemesShadowShippedOnesAndJoinTheCycle() throws {
    let user = try UserThemes()
    try user.write("light.theme", "title = fg:red\n")
    try user.write("mine.theme", "name = Mine\ntitle = underline\n")
    try user.write("aardvark.theme", "")
    try user.write(".hidden.theme", "")
    try user.write("notes.txt", "")
    let catalog = ThemeCatalog(userDirectory: user.path)
    #expect(catalog.availableNames() == ["dark", "light", "high-contrast", "colorblind", "aardvark", "mine"])
    #expect(try catalog.theme("light").style(for: "title").foreground == .ansi(1))
    #expect(try catalog.theme("mine").name == "Mine")
    #expect(try catalog.theme("dark") == ThemeCatalog.shippedDefault)
  }

  @Test func aPathLoadsThatFile() throws {
    let user = try UserThemes()
    try user.write("other.theme", "title = bold\n")
    let theme = try ThemeCatalog(userDirectory: nil).theme(user.path + "/other.theme")
    #expect(theme.name == "other")
    #expect(theme.style(for: "title").attributes == .bold)
  }

  @Test func aMalformedThemeFallsBackToTheDefaultWithFileAndLine() throws {
    let user = try UserThemes()
    try user.write("broken.theme", "# fine\ntitle = bold\ntitle.x = fg:blu\n")
    let (theme, problem) = ThemeCatalog(userDirectory: user.path).load("broken")
    #expect(theme == ThemeCatalog.shippedDefault)
    #expect(problem?.description.hasPrefix(user.path + "/broken.theme:3: unknown role 'title.x'") == true)
    try user.write("colour.theme", "title = fg:blu\n")
    let colour = ThemeCatalog(userDirectory: user.path).load("colour").problem
    #expect(
      colour?.description.hasSuffix(
        "colour.theme:1: unknown colour 'blu' (use a name such as red or bright-blue, #rrggbb, color(0-255) or default)"
      ) == true)
  }

  @Test func theStartingThemeIsTheOneNamedOrAnErrorNeverTheDefaultInSilence() throws {
    let user = try UserThemes()
    try user.write("broken.theme", "# mine\ntitle = bold\nthis is = not a theme [\n")
    let catalog = ThemeCatalog(userDirectory: user.path)
    #expect(try catalog.startingTheme(nil) == ThemeCatalog.shippedDefault)
    #expect(try catalog.startingTheme("light").name == "light")
    #expect(
      throws: ThemeError.malformedLine(
        file: user.path + "/broken.theme", line: 3, text: "this is = not a theme [")
    ) {
      try catalog.startingTheme("broken")
    }
    #expect(
      throws: ThemeError.malformedLine(
        file: user.path + "/broken.theme", line: 3, text: "this is = not a theme [")
    ) {
      try catalog.startingTheme(user.path + "/broken.theme")
    }
    #expect(throws: ThemeError.unknownTheme(name: "nope", available: catalog.availableNames())) {
      try catalog.startingTheme("nope")
    }
    // A broken user file shadowing the default is reported too, not skipped.
    try user.write("dark.theme", "title = fg:blu\n")
    #expect(throws: ThemeError.unknownColor(file: user.path + "/dark.theme", line: 1, text: "blu")) {
      try catalog.startingTheme(nil)
    }
  }

  @Test func unknownNamesAndUnreadablePathsAreReported() throws {
    let catalog = ThemeCatalog(userDirectory: nil)
    let (theme, problem) = catalog.load("nope")
    #expect(theme == ThemeCatalog.shippedDefault)
    #expect(problem == .unknownTheme(name: "nope", available: ThemeCatalog.shippedNames))
    #expect(catalog.load(nil).problem == nil)
    #expect(
      catalog.load("/nonexistent/x.theme").problem
        == .unreadable(file: "/nonexistent/x.theme", reason: "no such file"))
    let user = try UserThemes()
    #expect(catalog.load(user.path).problem == .unreadable(file: user.path, reason: "not a regular file"))
    try Data([0x74, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: user.path + "/bad.theme"))
    #expect(
      catalog.load(user.path + "/bad.theme").problem
        == .unreadable(file: user.path + "/bad.theme", reason: "not UTF-8 text"))
  }

  @Test func aUserDirectoryThatIsAFileHidesNoShippedTheme() throws {
    let user = try UserThemes()
    try user.write("themes", "not a directory")
    let catalog = ThemeCatalog(userDirectory: user.path + "/themes")
    #expect(catalog.load("light").problem == nil)
    #expect(catalog.load("light").theme.name == "light")
  }

  @Test func aFIFONeverBlocksTheLoad() throws {
    let user = try UserThemes()
    let path = user.path + "/fifo.theme"
    #expect(mkfifo(path, 0o600) == 0)
    #expect(
      ThemeCatalog(userDirectory: user.path).load("fifo").problem
        == .unreadable(file: path, reason: "not a regular file"))
  }
}

@Suite struct ThemeCycleTests {
  @Test func theCycleWalksTheAvailableNamesRoundToTheFirst() {
    let catalog = ThemeCatalog(userDirectory: nil)
    #expect(catalog.name(after: "dark") == "light")
    #expect(catalog.name(after: "colorblind") == "dark")
    #expect(catalog.name(after: "/some/path.theme") == "dark")
  }

  @Test func crlfFilesReadLineByLine() throws {
    let theme = try ThemeParser.parse("title = bold\r\nlist = dim\r\n", file: "dos.theme", defaultName: "dos")
    #expect(theme.style(for: "list").attributes == .dim)
    #expect(theme.style(for: "title").attributes == .bold)
  }
}
