import Foundation
import TestSupport
import Testing

/// Options are looked up by typed constants; a lookup of an option the verb did not declare
/// traps in the debug build these tests run (issue 12). Each verb's ordinary paths, with every
/// option it declares, run without tripping it.
@Suite(.hangLimit) struct OptionLookupTests {
  @Test func everyVerbRunsItsOptionsWithoutAnUndeclaredLookup() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let archive = home.path + "/a.archive"
    let invocations: [[String]] = [
      ["pass", "a", "1", "--sender", "s", "--transiting", "file", "--durable"] + location,
      ["pass", "b", "--string", "text"] + location,
      ["pass", "c", "--archive", archive] + location,
      ["read", "a"] + location, ["read", "a", "--json", "--transiting", "coordinated-file"] + location,
      ["read", "a", "--raw"] + location,
      ["listen", "a", "--count", "1", "--timeout", "0", "--json"] + location,
      ["tail", "--count", "1", "--json"] + location,
      ["dump", "--traffic", "1"] + location, ["dump", "--json"] + location,
      ["inspect", "--json", "--strict", archive],
      ["snapshot", "--size", "80x24", "--keys", "j", "--read-only", "--theme", "light", "--ansi"] + location,
      ["clear", "b", "--transiting", "file", "--sender", "s"] + location,
      ["clear", "--all"] + location,
      ["pass", "x", "1", "--home", home.path + "/home", "--group", "g", "--directory", "d"],
      ["read", "x", "--home", home.path + "/home", "--group", "g", "--directory", "d"],
    ]
    for arguments in invocations {
      let result = try run(arguments)
      #expect(result.reason == .exit, "\(arguments) was killed by signal \(result.status): \(result.errors)")
      #expect(result.status != 2, "\(arguments): \(result.errors)")
    }
  }

  /// `demo` opens the dashboard with the dashboard's options, not its own (it once handed its own
  /// to the dashboard, which looked up --container, --read-only and --mouse there).
  @Test func theDemoOpensItsDashboardWithoutAnUndeclaredLookup() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    // `script` gives the dashboard a terminal; the `q` waits in it until the dashboard reads keys.
    let command = try RunningCommand(
      ["-qec", "'\(executablePath)' demo", "/dev/null"],
      environment: ["TERM": "xterm", "TMPDIR": temporary.path], executable: "/usr/bin/script")
    command.write("q")
    let result = command.finish()
    #expect(result.reason == .exit && result.status == 0, "\(result.status) \(result.errors)")
  }
}
