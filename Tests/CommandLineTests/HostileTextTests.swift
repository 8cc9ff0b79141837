import Foundation
import Glibc
import KeyedArchive
import TestSupport
import Testing

/// Every field of a journal record and every string of an archive, filled with what a terminal
/// acts on or does not draw, through every output: no raw control, escape, bell, DEL, bidi
/// override or invisible character reaches standard output or standard error (issue 12).
@Suite(.hangLimit) struct HostileTextTests {
  /// Sets the window title, starts a CSI by C1, deletes, reverses, isolates, hides, separates.
  static let hostile =
    "t\u{1B}]2;TITLE\u{07}\u{9B}31m\u{7F}\u{202E}r\u{2066}\u{200B}\u{2060}\u{FEFF}\u{AD}\u{FFF9}\u{E0041}"
    + "\u{FE0F}\u{200D}\u{2028}\u{85}\u{61C}x"

  /// The scalars no output may hold raw (a newline separates lines and is allowed).
  static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0A: return false
    case 0x00..<0x20, 0x7F...0x9F: return true
    case 0x061C, 0x200B...0x200F, 0x202A...0x202E, 0x2028, 0x2029, 0x2060...0x2069, 0xFEFF, 0xAD: return true
    case 0xFFF9...0xFFFB, 0xFE00...0xFE0F, 0xE0000...0xE007F: return true
    default: return false
    }
  }

  private func expectClean(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation)
  {
    let raw = text.unicodeScalars.filter(Self.isForbidden).map { String($0.value, radix: 16) }
    #expect(raw.isEmpty, "\(what) printed raw \(raw)", sourceLocation: sourceLocation)
  }

  /// Every `]2;TITLE` of the escape sequence follows a written-out ESC: no path dropped the ESC.
  private func expectNothingDropped(
    _ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for piece in text.components(separatedBy: "]2;TITLE").dropLast() {
      #expect(
        piece.hasSuffix("\\u{1b}") || piece.hasSuffix("\\u001b"),
        "\(what) dropped an ESC: …\(piece.suffix(20))", sourceLocation: sourceLocation)
    }
  }

  private func expectClean(
    _ result: CommandResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    expectNothingDropped(result.output, what, sourceLocation: sourceLocation)
    expectNothingDropped(result.errors, what, sourceLocation: sourceLocation)
    expectClean(result.output, what + " (standard output)", sourceLocation: sourceLocation)
    expectClean(result.errors, what + " (standard error)", sourceLocation: sourceLocation)
  }

  /// JSON text for `text` that keeps every character raw except what JSON forbids raw (C0,
  /// quote, backslash): what a foreign writer may legally store.
  private func rawJSON(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x22: out += "\\\""
      case 0x5C: out += "\\\\"
      case 0x00..<0x20: out += String(format: "\\u%04x", scalar.value)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  /// JSON text for `text` with every non-ASCII character escaped: a command-line argument.
  private func asciiJSON(_ text: String) -> String {
    var out = "\""
    for unit in text.utf16 {
      switch unit {
      case 0x22: out += "\\\""
      case 0x5C: out += "\\\\"
      case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
      default: out += String(format: "\\u%04x", unit)
      }
    }
    return out + "\""
  }

  @Test func noOutputPrintsHostileTextRaw() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let hostile = Self.hostile
    let identifier = "m" + hostile
    // A message through the library: identifier, sender, a key and a string value.
    let value = "{\(asciiJSON("k" + hostile)):\(asciiJSON("v" + hostile))}"
    let passed = try run(["pass", identifier, value, "--sender", "s" + hostile] + location)
    #expect(passed.status == 0, "\(passed.errors)")
    expectClean(passed, "pass")
    // An archive written by another program: class names, field keys, strings.
    let object = ArchivedValue.object(
      ArchivedObject(
        className: "C" + hostile, classChain: ["C" + hostile, "NSObject"],
        fields: [ArchivedField(key: "f" + hostile, value: .string("s" + hostile))]))
    let archive = try KeyedArchiveEncoder().encode(object)
    let objectPath = home.path + "/o" + hostile + ".archive"
    #expect(FileManager.default.createFile(atPath: objectPath, contents: archive))
    // A record from a newer or hostile writer: every field, and an unknown one.
    let record =
      "{\"seq\":2,\"time\":\"2026-11-29T12:41:09.123Z\",\"pid\":9,\"sender\":\(rawJSON("s" + hostile)),"
      + "\"transiting\":\(rawJSON("tr" + hostile)),\"kind\":\(rawJSON("k" + hostile)),"
      + "\"identifier\":\(rawJSON(identifier)),\"bytes\":0,\"outcome\":\"failed\","
      + "\"error\":\(rawJSON("e" + hostile)),\"device\":\(rawJSON("d" + hostile))}\n"
    let handle = try #require(FileHandle(forWritingAtPath: home.path + "/.wormhole-journal"))
    handle.seekToEndOfFile()
    handle.write(Data(record.utf8))
    handle.closeFile()

    let tail = try run(["tail"] + location)
    #expect(tail.lines.count == 2, "\(tail.output)")
    #expect(tail.output.contains("\\u{1b}]2;TITLE\\u{7}"))
    expectClean(tail, "tail")
    let tailJSON = try run(["tail", "--json"] + location)
    #expect(tailJSON.lines.count == 2)
    expectClean(tailJSON, "tail --json")
    for line in tailJSON.lines {
      #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
    }
    for arguments in [["dump"], ["dump", "--json"]] {
      let result = try run(arguments + location)
      #expect(result.status == 0, "\(result.errors)")
      expectClean(result, arguments.joined(separator: " "))
    }
    for arguments in [["read", identifier], ["read", identifier, "--json"], ["read", "o" + hostile]] {
      let result = try run(arguments + location)
      #expect(result.status == 0, "\(result.errors)")
      expectClean(result, arguments.joined(separator: " "))
    }
    for arguments in [["inspect", objectPath], ["inspect", "--json", objectPath]] {
      let result = try run(arguments)
      #expect(result.status == 0, "\(result.errors)")
      expectClean(result, arguments.joined(separator: " "))
    }
    // The dashboard: the frame escapes what it cannot draw instead of dropping it.
    for keys in ["", "j", "jj<Tab>"] {
      let snapshot = try run(["snapshot", "--size", "200x40", "--keys", keys] + location)
      #expect(snapshot.status == 0, "\(snapshot.errors)")
      expectClean(snapshot, "snapshot --keys \(keys)")
      #expect(snapshot.output.contains("\\u{1b}"), "\(snapshot.output)")
      if keys.isEmpty {
        // The unknown kind in the traffic pane, escaped rather than dropped.
        #expect(snapshot.output.contains("\"kt\\u{1b}"), "\(snapshot.output)")
        #expect(!snapshot.output.contains("kt]2;TITLE"), "\(snapshot.output)")
      }
    }
  }

  @Test func followingOutputsPrintNoHostileTextRaw() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let hostile = Self.hostile
    let identifier = "m" + hostile
    #expect(try run(["pass", "first"] + location).status == 0)
    let tail = try RunningCommand(["tail", "--follow"] + location)
    let tailJSON = try RunningCommand(["tail", "--follow", "--json"] + location)
    let dump = try RunningCommand(["dump", "--follow"] + location)
    let dumpJSON = try RunningCommand(["dump", "--follow", "--json"] + location)
    let listen = try RunningCommand(["listen", identifier, "--count", "1"] + location)
    let listenJSON = try RunningCommand(["listen", identifier, "--count", "1", "--json"] + location)
    for command in [tail, tailJSON] { #expect(command.waitFor("following traffic")) }
    for command in [dump, dumpJSON] { #expect(command.waitFor("watching")) }
    for command in [listen, listenJSON] { #expect(command.waitFor("listening for")) }
    let value = "{\(asciiJSON("k" + hostile)):\(asciiJSON("v" + hostile))}"
    #expect(try run(["pass", identifier, value, "--sender", "s" + hostile] + location).status == 0)
    for command in [tail, tailJSON, dump, dumpJSON] { #expect(command.waitFor("\"", inErrors: false)) }
    for command in [tail, tailJSON, dump, dumpJSON] { command.interrupt() }
    let results = [
      ("tail --follow", tail.finish()), ("tail --follow --json", tailJSON.finish()),
      ("dump --follow", dump.finish()), ("dump --follow --json", dumpJSON.finish()),
      ("listen", listen.finish()), ("listen --json", listenJSON.finish()),
    ]
    for (what, result) in results {
      #expect(!result.output.isEmpty, "\(what) printed nothing")
      expectClean(result, what)
    }
  }

  @Test func namesThatDifferByAnInvisibleCharacterLookDifferent() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    for name in ["zwj", "zw\u{200B}j", "zw\u{2060}j", "zw\u{FEFF}j", "zw\u{AD}j", "zw\u{E0041}j"] {
      #expect(try run(["pass", name, "1"] + location).status == 0)
    }
    let tail = try run(["tail"] + location)
    let identifiers = tail.lines.compactMap { $0.split(separator: " ").dropFirst(6).first.map(String.init) }
    #expect(
      identifiers == [
        "zwj", #""zw\u{200b}j""#, #""zw\u{2060}j""#, #""zw\u{feff}j""#, #""zw\u{ad}j""#, #""zw\u{e0041}j""#,
      ], "\(tail.output)")
    let snapshot = try run(["snapshot", "--size", "120x30"] + location)
    for shown in [#""zw\u{200b}j""#, #""zw\u{2060}j""#, #""zw\u{feff}j""#, #""zw\u{ad}j""#] {
      #expect(snapshot.output.contains(shown), "\(snapshot.output)")
    }
  }
}
