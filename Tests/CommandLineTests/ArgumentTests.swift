import Foundation
import Testing
import Wormhole

/// The command line as a hostile neighbour or an unlucky script writes it: names full of
/// control characters, `--`, bytes that are not UTF-8, and standard input that stops halfway.
@Suite struct ArgumentTests {
  /// Clears the screen, sets the window title, reverses text, breaks the line and adds a C1 CSI.
  static let hostile = "evil\u{1b}[2J\u{1b}]0;title\u{07}\u{202e}rtl\nline\u{9b}c1\u{7f}"

  /// Every scalar of `text` except line ends is one a terminal shows rather than acts on.
  private func expectNothingRaw(_ text: String, _ context: String) {
    for scalar in text.unicodeScalars where scalar != "\n" {
      #expect(
        !DisplayTextProbe.isUnsafe(scalar), "\(context): U+\(String(scalar.value, radix: 16)) in \(text)")
    }
  }

  /// Each way an argument is echoed in an error message, fed a hostile name (HOME stands for a
  /// fresh directory, FILE for a regular file in it).
  @Test(arguments: [
    [hostile], ["read", "x", "--" + hostile], ["read", "x", "--" + hostile + "=1"],
    ["tail", "--count", hostile, "--container", "HOME"],
    ["listen", "x", "--timeout", hostile, "--container", "HOME"],
    ["pass", "x", "--transiting", hostile, "--container", "HOME"],
    ["pass", "x", "--archive", "HOME/" + hostile, "--container", "HOME"],
    ["pass", "x", "--archive", "HOME/hostile-junk", "--container", "HOME"],
    ["read", "x", "--container", "HOME/" + hostile], ["pass", "x", "1", "--home", "FILE/" + hostile],
    ["read", "x", "--container", "HOME", "--directory", hostile], ["read", hostile, "--container", "HOME"],
    ["clear", hostile + "/x", "--container", "HOME"], ["inspect", "HOME/" + hostile],
    ["dump", "HOME/" + hostile], ["demo", "--seconds", hostile],
  ])
  func argumentsEchoedInErrorsReachTheTerminalEscaped(arguments: [String]) throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    _ = FileManager.default.createFile(atPath: home.path + "/FILE", contents: Data("file".utf8))
    _ = FileManager.default.createFile(atPath: home.path + "/hostile-junk", contents: Data("junk".utf8))
    let resolved = arguments.map {
      $0.replacingOccurrences(of: "HOME", with: home.path).replacingOccurrences(
        of: "FILE", with: home.path + "/FILE")
    }
    let result = try run(resolved)
    #expect(result.status != 0, "\(arguments)")
    #expect(result.output.isEmpty, "\(arguments): \(result.output)")
    expectNothingRaw(result.errors, "\(arguments)")
    // One diagnostic line, which shows the name escaped rather than dropping it.
    #expect(result.errors.filter { $0 == "\n" }.count == 1, "\(arguments): \(result.errors)")
    #expect(result.errors.contains(#"\u{1b}"#) || resolved.contains { $0.hasSuffix("hostile-junk") })
  }

  /// `--history N` is checked before anything else, terminal or not: a bad depth is a usage error.
  @Test(arguments: ["0", "-3", "many", ""]) func aHistoryDepthThatIsNotAPositiveNumberIsRefused(
    _ depth: String
  ) throws {
    let result = try run(["dashboard", "--history", depth])
    #expect(result.status == 2)
    #expect(result.errors.contains("--history takes a whole number of at least 1"), "\(result.errors)")
  }

  @Test func doubleDashEndsOptionsSoAnyIdentifierCanBeNamed() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    #expect(try run(["pass"] + location + ["--", "--all", "1"]).status == 0)
    #expect(try run(["pass"] + location + ["--", "-x", #"{"a":1}"#]).status == 0)
    #expect(try run(["pass", "keep", "2"] + location).status == 0)
    let read = try run(["read", "--json"] + location + ["--", "-x"])
    #expect(read.status == 0 && read.output == "{\"a\":1}\n", "\(read.errors)")
    let help = try run(["read"] + location + ["--", "--help"])
    #expect(help.status == 1 && help.errors.contains("no message for --help"), "\(help.errors)")
    let cleared = try run(["clear"] + location + ["--", "--all"])
    #expect(cleared.status == 0, "\(cleared.errors)")
    let left = try FileManager.default.contentsOfDirectory(atPath: home.path).sorted()
    #expect(left == ["-x.archive", ".wormhole-journal", "keep.archive"])
  }

  @Test func anInlineValueIsSplitAtTheEqualsByteEvenBeforeACombiningMark() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    // "=\u{338}" is one Character ("≠"), but the option ends at its "=".
    let passed = try run(["pass", "x", "--string=\u{338}y"] + location)
    #expect(passed.status == 0, "\(passed.errors)")
    let read = try run(["read", "--json", "x"] + location)
    #expect(read.outputData == Data("\"\u{338}y\"\n".utf8), "\(read.output)")
  }

  @Test func passLinesSaysHowManyWerePassedBeforeABadLine() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let result = try run(["pass", "x", "--lines"] + location, input: "1\n2\n\nnope\n3\n")
    #expect(result.status == 2)
    #expect(result.errors.contains("line 4 is not valid JSON"), "\(result.errors)")
    #expect(
      result.errors.contains("the 2 messages before it were passed, nothing from it on"), "\(result.errors)")
    #expect(try run(["read", "--json", "x"] + location).output == "2\n")
    let records = try run(["tail", "--json"] + location).lines.compactMap(TrafficRecord.init(jsonLine:))
    #expect(records.count == 2)

    let first = try run(["pass", "y", "--lines"] + location, input: "{\n1\n")
    #expect(
      first.status == 2 && first.errors.contains("line 1") && first.errors.contains("nothing was passed"))
    #expect(!FileManager.default.fileExists(atPath: home.path + "/y.archive"))
  }

  /// Lines longer than one read (64 KiB), short ones between them and a last line without a
  /// newline each arrive whole: the newline search goes on where the last read stopped.
  @Test func passLinesTakesLinesLongerThanOneReadWhole() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let long = "\"" + String(repeating: "y", count: 300_000) + "\""
    let longer = "\"" + String(repeating: "z", count: 140_000) + "\""
    let result = try run(
      ["pass", "x", "--lines"] + location, input: long + "\n1\n" + longer + "\n2\n" + long)
    #expect(result.status == 0, "\(result.errors)")
    let records = try run(["tail", "--json"] + location).lines.compactMap(TrafficRecord.init(jsonLine:))
    #expect(records.map(\.bytes).count == 5)
    #expect(try run(["read", "--json", "x"] + location).output == long + "\n")
  }

  @Test func passLinesRefusesALineThatIsNotUTF8() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    var input = Data("\"ok\"\n\"a".utf8)
    input.append(0xFF)
    input.append(contentsOf: "b\"\n\"later\"\n".utf8)
    let result = try runShell("exec \"$0\" pass x --lines --container \"$1\"", [home.path], input: input)
    #expect(result.status == 2)
    #expect(result.errors.contains("line 2 is not valid UTF-8"), "\(result.errors)")
    #expect(result.errors.contains("the 1 message before it was passed"), "\(result.errors)")
    #expect(try run(["read", "--json", "x", "--container", home.path]).output == "\"ok\"\n")
  }

  /// `printf '\377'` writes the byte 0xFF, which no UTF-8 text holds.
  @Test(arguments: [
    "read \"a$(printf '\\377')b\"", "pass \"a$(printf '\\377')b\" 1", "clear \"$(printf '\\377')\"",
    "pass x --string \"$(printf '\\377')\"", "pass x 1 --sender \"$(printf '\\377')\"",
  ])
  func argumentsThatAreNotUTF8AreRefused(command: String) throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let result = try runShell("exec \"$0\" \(command) --container \"$1\"", [home.path])
    #expect(result.status == 2, "\(command): \(result.errors)")
    #expect(result.errors.contains("is not valid UTF-8"), "\(command): \(result.errors)")
    #expect(result.errors.contains(#"x{ff}"#), "\(command): \(result.errors)")
    expectNothingRaw(result.errors, command)
    #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty, "\(command)")
  }

  @Test func identifiersThatLookTheSameAreDifferentMailboxes() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let composed = "caf\u{e9}"
    let decomposed = "cafe\u{301}"
    #expect(try run(["pass", composed, "1"] + location).status == 0)
    #expect(try run(["pass", decomposed, "2"] + location).status == 0)
    #expect(try run(["read", "--json", composed] + location).output == "1\n")
    #expect(try run(["read", "--json", decomposed] + location).output == "2\n")
    #expect(try run(["clear", decomposed] + location).status == 0)
    #expect(try run(["read", "--json", composed] + location).output == "1\n")
    #expect(try run(["read", decomposed] + location).status == 1)
  }
}
