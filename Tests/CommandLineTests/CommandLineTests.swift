import Foundation
import KeyedArchive
import Testing
import Wormhole

/// The verbs as scripts use them, each run as its own process.
@Suite struct CommandLineTests {
  @Test func passThenReadJSONGivesTheSameValue() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--home", home.path, "--group", "g"]
    let passed = try run(["pass", "ID", #"{"a":1}"#] + location)
    #expect(passed.status == 0 && passed.output.isEmpty, "\(passed.errors)")
    let read = try run(["read", "--json", "ID"] + location)
    #expect(read.status == 0, "\(read.errors)")
    let value = try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? NSDictionary
    #expect(value == ["a": 1] as NSDictionary)
  }

  @Test func valuesOfEveryJSONKindSurviveTheTrip() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--home", home.path]
    let text = #"{"array":[1,2.5,"x",true,false,null],"nested":{"deep":{"er":[]}},"unicode":"é😀\n"}"#
    #expect(try run(["pass", "kinds", text] + location).status == 0)
    let read = try run(["read", "kinds", "--json"] + location)
    let original = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
    let back = try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? NSDictionary
    #expect(back == original, "\(read.output)")
  }

  @Test func archivesWrittenByTheCommandDecodeWithPlistlibAndFoundation() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    #expect(try run(["pass", "m", #"{"title":"hi","n":[1,true]}"#, "--container", home.path]).status == 0)
    let file = home.path + "/m.archive"
    let data = try #require(FileManager.default.contents(atPath: file))
    let root = try #require(try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) as? NSDictionary)
    #expect(root["title"] as? String == "hi")
    let python = Process()
    python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    python.arguments = [
      "python3", "-c",
      "import plistlib,sys; p=plistlib.load(open(sys.argv[1],'rb')); o=p['$objects']; "
        + "print(p['$archiver'], type(p['$top']['root']).__name__, o[0])",
      file,
    ]
    let pipe = Pipe()
    python.standardOutput = pipe
    try python.run()
    python.waitUntilExit()
    let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(printed == "NSKeyedArchiver UID $null\n")
  }

  @Test func readingAnEmptyMailboxExitsOne() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let read = try run(["read", "nothing", "--container", home.path])
    #expect(read.status == 1 && read.output.isEmpty)
    #expect(read.errors.contains("no message for nothing"))
  }

  @Test(arguments: [
    ["pass", ""], ["pass", "a/b"], ["pass", ".."], ["pass", "."], ["read", "x/y"], ["clear", ".."],
    ["listen", "ok", "a/b"],
  ])
  func badIdentifiersAreRefusedWithExitTwo(arguments: [String]) throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let result = try run(arguments + ["--container", home.path])
    #expect(result.status == 2)
    #expect(result.errors.contains("invalid identifier"), "\(result.errors)")
    // Nothing was written.
    #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
  }

  @Test(arguments: [
    (["pass", "x", "{not json"], "not valid JSON"),
    (["pass", "x", "--frobnicate"], "unknown option --frobnicate"),
    (["pass", "x", "1", "--string", "s"], "only one of"), (["listen", "x", "--count", "0"], "at least 1"),
    (["tail", "--count", "many"], "whole number"),
    (["pass", "x", "--transiting", "pigeon"], "unknown transiting type"),
    (["pass", "x", "--transiting", "session-message"], "not available"), (["nonsense"], "unknown verb"),
  ])
  func usageErrorsExitTwoWithAMessage(arguments: [String], message: String) throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let result = try run(arguments + ["--container", home.path])
    #expect(result.status == 2)
    #expect(result.errors.contains(message), "\(result.errors)")
  }

  /// A value that is not JSON is told how to give it where the verb has a way: `pass` and a
  /// remote pass take `--string`, `peer send` `--string TEXT` or `@FILE`; `--lines` and
  /// `device run --reply` get no hint they could not follow.
  @Test(arguments: [
    (["pass", "x", "hi"], "(pass text with --string)"),
    (
      ["peer", "send", "--from", "a", "--to", "b", "--mode", "reliable", "hi"],
      "(send text with --string TEXT"
    ),
    (["device", "run", "--pair", "p", "--role", "phone", "--reply", "hi"], "--reply is not valid JSON"),
  ])
  func aValueThatIsNotJSONIsToldWhatTheVerbTakes(arguments: [String], said: String) throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let result = try run(arguments + ["--home", home.path])
    #expect(result.status == 2, "\(result.errors)")
    #expect(result.errors.contains(said), "\(result.errors)")
    if arguments[0] == "device" { #expect(!result.errors.contains("--string"), "\(result.errors)") }
  }

  /// The hidden verbs (the demo's own `demo-player`) are not offered to a mistyped verb.
  @Test func anUnknownVerbListsTheVerbsAUserCanRun() throws {
    let result = try run(["nonsense"])
    #expect(result.status == 2)
    #expect(result.errors.contains("verbs: dashboard, pass"), "\(result.errors)")
    #expect(!result.errors.contains("demo-player"), "\(result.errors)")
  }

  @Test func aMissingContainerSaysWhatToDo() throws {
    let result = try run(["read", "x", "--container", "/nonexistent/app-group"])
    #expect(result.status == 3)
    #expect(result.errors.contains("/nonexistent/app-group") && result.errors.contains("does not exist"))
  }

  @Test func clearAllLeavesOtherFilesAlone() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    for identifier in ["a", "b"] {
      #expect(try run(["pass", identifier, "1", "--container", home.path]).status == 0)
    }
    _ = FileManager.default.createFile(atPath: home.path + "/keep.txt", contents: Data("keep".utf8))
    _ = FileManager.default.createFile(atPath: home.path + "/keep.plist", contents: Data("keep".utf8))
    #expect(try run(["clear", "--all", "--container", home.path]).status == 0)
    let left = try FileManager.default.contentsOfDirectory(atPath: home.path).sorted()
    #expect(left == [".wormhole-journal", "keep.plist", "keep.txt"])
  }

  @Test func passArchiveRefusesFilesThatAreNotPropertyLists() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    _ = FileManager.default.createFile(atPath: home.path + "/junk", contents: Data("junk".utf8))
    let result = try run(["pass", "x", "--archive", home.path + "/junk", "--container", home.path])
    #expect(result.status == 2 && result.errors.contains("is not an archive or property list"))
    #expect(!FileManager.default.fileExists(atPath: home.path + "/x.archive"))
  }

  @Test func passArchiveCopiesBytesExactly() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    #expect(try run(["pass", "source", #"[1,2,3]"#, "--container", home.path]).status == 0)
    let original = try #require(FileManager.default.contents(atPath: home.path + "/source.archive"))
    let result = try run([
      "pass", "copy", "--archive", home.path + "/source.archive", "--container", home.path,
    ])
    #expect(result.status == 0, "\(result.errors)")
    #expect(FileManager.default.contents(atPath: home.path + "/copy.archive") == original)
    let raw = try run(["read", "copy", "--raw", "--container", home.path])
    #expect(raw.status == 0 && raw.outputData == original)
  }

  @Test func inspectShowsAnAppleArchive() throws {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("KeyedArchiveTests/Fixtures/NSMeasurement-Length.archive").path
    let result = try run(["inspect", fixture])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.contains("NSMeasurement"))
    let json = try run(["inspect", "--json", fixture])
    #expect(json.status == 0)
    #expect((try? JSONSerialization.jsonObject(with: Data(json.output.utf8))) != nil)
    let missing = try run(["inspect", "/nonexistent.archive"])
    #expect(missing.status == 3 && missing.errors.contains("/nonexistent.archive"))
  }

  /// With several FILEs, each JSON line names its file, and one that could not be read has its
  /// line too: line N is FILE N, whatever failed before it.
  @Test func inspectJSONOfSeveralFilesNamesEachFileOnItsLine() throws {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("KeyedArchiveTests/Fixtures/NSMeasurement-Length.archive").path
    let files = [fixture, "/nonexistent.archive", fixture]
    let result = try run(["inspect", "--json"] + files)
    #expect(result.status == 3, "\(result.errors)")
    let lines = result.output.split(separator: "\n")
    try #require(lines.count == 3, "\(result.output)")
    for (line, file) in zip(lines, files) {
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
      #expect(object["file"] as? String == file)
      if file == fixture {
        let inspection = try #require(object["inspection"] as? [String: Any], "\(line)")
        #expect(inspection["archiver"] as? String == "NSKeyedArchiver", "\(line)")
      } else {
        #expect((object["error"] as? String)?.contains("/nonexistent.archive") == true, "\(line)")
      }
    }
    #expect(result.errors.contains("cannot read /nonexistent.archive"))
  }

  @Test func everyVerbHasHelp() throws {
    for verb in [
      "pass", "read", "clear", "listen", "tail", "dump", "inspect", "snapshot", "dashboard", "demo",
    ] {
      let result = try run([verb, "--help"])
      #expect(result.status == 0 && result.output.hasPrefix("usage: wormhole-tui \(verb)"), "\(verb)")
    }
    let overview = try run(["--help"])
    #expect(overview.status == 0 && overview.output.contains("verbs:"))
    #expect(!overview.output.contains("demo-player"))  // internal
  }

  /// The demo's simulated app and extension make every kind of traffic, and nothing is left.
  @Test func demoRunsHeadlessAndLeavesNothingBehind() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let result = try run(["demo", "--no-ui", "--seconds", "4"], environment: ["TMPDIR": temporary.path])
    #expect(result.status == 0, "\(result.errors)")
    for expected in [
      " passed ", " notification ", " cleared ", " changed-without-record ", "transiting=file",
      "transiting=coordinated-file", "Is a directory",
    ] {
      #expect(result.output.contains(expected), "\(expected) in \(result.output)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
  }
}

/// Processes talking to each other through the wormhole.
@Suite struct CrossProcessTests {
  @Test func aListenerHearsAPassFromAnotherProcess() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let listener = try RunningCommand(
      ["listen", "button", "--count", "1", "--json", "--timeout", "30"] + location)
    #expect(listener.waitFor("listening for button"))
    #expect(try run(["pass", "button", #"{"buttonNumber":1}"#, "--sender", "other"] + location).status == 0)
    let result = listener.finish()
    #expect(result.status == 0, "\(result.errors)")
    let line = try #require(result.lines.first)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(object["identifier"] as? String == "button")
    #expect(object["sender"] as? String == "other")
    #expect((object["message"] as? NSDictionary) == ["buttonNumber": 1] as NSDictionary)
  }

  @Test func notificationOnlyPassesAreHeard() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let listener = try RunningCommand(["listen", "ping", "--count", "1", "--timeout", "30"] + location)
    #expect(listener.waitFor("listening for ping"))
    #expect(try run(["pass", "ping"] + location).status == 0)
    let result = listener.finish()
    #expect(result.status == 0)
    #expect(result.lines == ["ping: (notification)"])
  }

  @Test func listenTimesOutWithExitOne() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let result = try run(["listen", "quiet", "--count", "1", "--timeout", "0.2", "--container", home.path])
    #expect(result.status == 1 && result.errors.contains("timed out"))
  }

  // Without --count, --timeout is how long to listen: what was heard is a success (exit 1 is
  // "nothing there"), and only a listener that heard nothing times out.
  @Test func listenWithoutACountThatHeardMessagesEndsWithExitZeroAtItsTimeout() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let listener = try RunningCommand(["listen", "a", "--timeout", "10"] + location)
    #expect(listener.waitFor("listening for"))
    #expect(try run(["pass", "a", "1"] + location).status == 0)
    let heard = listener.finish(seconds: 30)
    #expect(heard.status == 0, "\(heard.errors)")
    #expect(heard.lines == ["a: 1"], "\(heard.output)")
    #expect(!heard.errors.contains("timed out"), "\(heard.errors)")
    let quiet = try run(["listen", "a", "--timeout", "0.2"] + location)
    #expect(quiet.status == 1)
    #expect(quiet.errors.contains("timed out after 0.2 s without a message"), "\(quiet.errors)")
  }

  @Test func eightProcessesOfAThousandPassesEachLoseNothing() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let writers = try (0..<8).map { index in
      try RunningCommand(["pass", "writer\(index)", "--lines", "--sender", "w\(index)"] + location)
    }
    for (index, writer) in writers.enumerated() {
      writer.write((0..<1000).map { #"{"writer":\#(index),"n":\#($0)}"# }.joined(separator: "\n") + "\n")
      writer.closeInput()
    }
    for writer in writers {
      let result = writer.finish(seconds: 300)
      #expect(result.status == 0, "\(result.errors)")
    }
    for index in 0..<8 {
      let read = try run(["read", "writer\(index)", "--json"] + location)
      let value = try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? NSDictionary
      #expect(value == ["writer": index, "n": 999] as NSDictionary, "writer\(index): \(read.output)")
    }
    let tail = try run(["tail", "--json"] + location)
    let records = tail.lines.compactMap(TrafficRecord.init(jsonLine:))
    #expect(tail.lines.count == 8000 && records.count == 8000)
    #expect(records.map(\.sequence) == Array(1...8000))
    for index in 0..<8 {
      let mine = records.filter { $0.sender == "w\(index)" }
      #expect(
        mine.count == 1000 && mine.allSatisfy { $0.identifier == "writer\(index)" && $0.outcome == .ok })
    }
  }

  @Test func tailPrintsTheLastRecordsAndFollowsNewOnes() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    for index in 0..<5 { #expect(try run(["pass", "t\(index)"] + location).status == 0) }
    let last = try run(["tail", "--count", "2"] + location)
    #expect(last.lines.count == 2 && last.lines[0].hasPrefix("4 ") && last.lines[1].hasPrefix("5 "))
    #expect(last.lines[1].contains(" file notify t4 0 ok"))

    let follower = try RunningCommand(["tail", "--follow", "--json"] + location)
    #expect(follower.waitFor("\"seq\":5", inErrors: false))
    #expect(try run(["pass", "t5", "1"] + location).status == 0)
    #expect(follower.waitFor("\"seq\":6", inErrors: false))
    follower.interrupt()
    let result = follower.finish()
    #expect(result.lines.count == 6)
    #expect(result.lines.last.flatMap(TrafficRecord.init(jsonLine:))?.identifier == "t5")
  }

  @Test func coordinatedPassesFromSeveralProcessesSerialize() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let coordinated = location + ["--transiting", "coordinated-file"]
    let writers = try (0..<3).map { _ in try RunningCommand(["pass", "shared", "--lines"] + coordinated) }
    for (index, writer) in writers.enumerated() {
      writer.write((0..<200).map { #"[\#(index),\#($0)]"# }.joined(separator: "\n"))
      writer.closeInput()
    }
    for writer in writers { #expect(writer.finish(seconds: 120).status == 0) }
    let read = try run(["read", "shared", "--json"] + coordinated)
    let value = try #require(try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [Int])
    #expect(value.count == 2 && value[1] == 199)
    let records = try run(["tail", "--json"] + location).lines.compactMap(TrafficRecord.init(jsonLine:))
    #expect(records.count == 600 && records.allSatisfy { $0.transiting == "coordinated-file" })
  }
}

/// Writes that fail part-way (a full disk, a file-size limit) lose nothing and say why.
@Suite struct FailedWriteTests {
  @Test func aWriteCutShortKeepsTheOldMessageAndSaysWhy() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    #expect(try run(["pass", "x", #""old""#, "--container", home.path]).status == 0)
    let original = try #require(FileManager.default.contents(atPath: home.path + "/x.archive"))
    // A 4 KiB file-size limit: the new archive (about 8 KB) cannot be written.
    let big = "\"" + String(repeating: "y", count: 8000) + "\""
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = [
      "-c", "ulimit -f 4 && exec \"$0\" pass x \"$1\" --container \"$2\"", executablePath, big, home.path,
    ]
    let errors = Pipe()
    shell.standardError = errors
    try shell.run()
    shell.waitUntilExit()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(shell.terminationStatus == 3, "\(message)")
    #expect(message.contains("File too large"), "\(message)")
    #expect(FileManager.default.contents(atPath: home.path + "/x.archive") == original)
    let left = try FileManager.default.contentsOfDirectory(atPath: home.path)
    #expect(!left.contains { $0.hasSuffix(".tmp") }, "\(left)")
    let read = try run(["read", "x", "--json", "--container", home.path])
    #expect(read.output == "\"old\"\n")
  }
}

/// A group nothing was passed in is empty, not broken; a missing --container is an error.
@Suite struct UnusedGroupTests {
  @Test func readingClearingAndListingAnUnusedGroupWriteNothing() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let group = ["--home", home.path, "--group", "never-used"]
    let read = try run(["read", "x"] + group)
    #expect(read.status == 1 && read.errors.contains("nothing has been passed here yet"))
    #expect(try run(["clear", "x"] + group).status == 0)
    #expect(try run(["clear", "--all"] + group).status == 0)
    let tail = try run(["tail"] + group)
    #expect(tail.status == 0 && tail.output.isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
  }

  @Test func followingAnUnusedGroupWaitsForItsFirstPost() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let group = ["--home", home.path, "--group", "later"]
    let follower = try RunningCommand(["tail", "--follow"] + group)
    #expect(follower.waitFor("following traffic in \(home.path)/AppGroup/later"))
    #expect(try run(["pass", "first"] + group).status == 0)
    #expect(follower.waitFor(" notify first 0 ok", inErrors: false))
    follower.interrupt()
    _ = follower.finish()
  }

  @Test func aMissingContainerIsStillAnError() throws {
    for verb in [["read", "x"], ["clear", "x"], ["tail"]] {
      let result = try run(verb + ["--container", "/nonexistent/app-group"])
      #expect(result.status == 3 && result.errors.contains("does not exist"), "\(verb)")
    }
  }
}

/// Identifiers may hold anything a file name can; what the verbs print stays one line per
/// record and never hands a terminal a control sequence.
@Suite struct HostileNameTests {
  static let identifier = "evil\u{1b}[31mred\nline\u{202e}RTL\u{9b}c1"

  private func expectSafe(_ text: String, _ context: String) {
    for scalar in text.unicodeScalars where scalar != "\n" {
      #expect(
        !DisplayTextProbe.isUnsafe(scalar), "\(context): U+\(String(scalar.value, radix: 16)) in \(text)")
    }
  }

  @Test func tailListenAndDiagnosticsEscapeWhatATerminalWouldActOn() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let listener = try RunningCommand(
      ["listen", Self.identifier, "--count", "1", "--timeout", "30"] + location)
    #expect(listener.waitFor("listening for"))
    #expect(try run(["pass", Self.identifier, #""x""#] + location).status == 0)
    let heard = listener.finish()
    #expect(heard.lines.count == 1, "\(heard.output)")
    expectSafe(heard.output, "listen")
    expectSafe(heard.errors, "listen diagnostics")

    let tail = try run(["tail"] + location)
    #expect(tail.lines.count == 1)
    expectSafe(tail.output, "tail")
    #expect(tail.output.contains(#""evil\u{1b}[31mred\nline\u{202e}RTL\u{9b}c1""#))

    let missing = try run(["read", Self.identifier + "-absent"] + location)
    #expect(missing.status == 1)
    expectSafe(missing.errors, "read diagnostics")
    let dump = try run(["dump"] + location)
    #expect(dump.status == 0)
    expectSafe(dump.output, "dump")
    #expect(dump.output.contains(#""evil\u{1b}[31mred\nline\u{202e}RTL\u{9b}c1""#))
    // JSON output escapes what JSON must, and stays one line per record.
    let json = try run(["tail", "--json"] + location)
    #expect(json.lines.count == 1 && TrafficRecord(jsonLine: json.lines[0])?.identifier == Self.identifier)
  }
}

enum DisplayTextProbe {
  static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00..<0x20, 0x7F..<0xA0, 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
      return true
    default: return false
    }
  }
}

/// A copied simulator app-group container opens as it is, with MMWormhole's optional directory.
@Suite struct ContainerDirectoryTests {
  @Test func anOptionalDirectoryBelowAContainerIsCreatedWhenPassing() throws {
    let container = TemporaryDirectory()
    defer { container.remove() }
    let location = ["--container", container.path, "--directory", "wormhole"]
    let before = try run(["read", "x"] + location)
    #expect(before.status == 1 && before.errors.contains("nothing has been passed here yet"))
    #expect(!FileManager.default.fileExists(atPath: container.path + "/wormhole"))
    #expect(try run(["pass", "x", "[1]"] + location).status == 0)
    #expect(FileManager.default.fileExists(atPath: container.path + "/wormhole/x.archive"))
    #expect(try run(["read", "x", "--json"] + location).output == "[1]\n")
  }

  @Test func aContainerReplacesAGroup() throws {
    let container = TemporaryDirectory()
    defer { container.remove() }
    let both = try run(["read", "x", "--container", container.path, "--group", "g"])
    #expect(both.status == 2 && both.errors.contains("--container replaces --group"))
    let escape = try run(["pass", "x", "--container", container.path, "--directory", "../outside"])
    #expect(escape.status == 2 && escape.errors.contains("invalid optional directory"))
  }
}
