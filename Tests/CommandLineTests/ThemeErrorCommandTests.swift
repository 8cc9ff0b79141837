import Foundation
import Testing

/// A theme that does not load ends `snapshot` (and the dashboard's start) with its file, line and
/// what was expected, and exit 2; it is never replaced by the default look in silence.
@Suite struct ThemeErrorCommandTests {
  @Test(arguments: [[], ["--ansi"]])
  func aMalformedThemeFileStopsSnapshotWithItsLine(extra: [String]) throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let path = home.path + "/broken.theme"
    try Data("# my theme\ntitle = bold\nthis is = not a theme [\n".utf8).write(to: URL(fileURLWithPath: path))
    let result = try run(["snapshot", "--home", home.path, "--theme", path] + extra)
    #expect(result.status == 2, "\(result.errors)")
    #expect(result.output.isEmpty)
    #expect(
      result.errors.contains(path + ":3: expected 'role = fg:COLOUR bg:COLOUR ATTRIBUTES'"),
      "\(result.errors)")
    #expect(result.errors.contains("found 'this is = not a theme ['"), "\(result.errors)")
  }

  @Test func anUnknownThemeNameStopsSnapshotWithTheNamesAvailable() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let result = try run(
      ["snapshot", "--home", home.path, "--theme", "nope"], environment: ["XDG_CONFIG_HOME": home.path])
    #expect(result.status == 2, "\(result.errors)")
    #expect(result.errors.contains("unknown theme 'nope' (available: dark, light"), "\(result.errors)")
  }

  @Test func theDashboardRefusesToStartWithAMalformedTheme() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let path = home.path + "/broken.theme"
    try Data("title = fg:blu\n".utf8).write(to: URL(fileURLWithPath: path))
    // Through `script`, so that the dashboard has a terminal and gets as far as its theme.
    let result = try runProgram(
      "/usr/bin/script",
      [
        "-qec", "TERM=xterm \(CommandLine.quoted(executablePath)) --home \(home.path) --theme \(path)",
        "/dev/null",
      ])
    #expect(result.status == 2, "\(result.output) \(result.errors)")
    #expect((result.output + result.errors).contains(path + ":1: unknown colour 'blu'"), "\(result.output)")
  }
}

extension CommandLine {
  /// `text` quoted for `sh`.
  fileprivate static func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
