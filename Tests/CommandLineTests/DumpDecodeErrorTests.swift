import Foundation
import TestSupport
import Testing
import WormholeVocabulary

/// `dump` and `dump --json` say why a mailbox's message is not the archive it was meant to be
/// (`decode error: …`, `"decode_error"`), as `read` and `inspect` do: a truncated archive, a
/// property list that tries to be an archive and is not one, and a hostile file whose reason
/// quotes terminal escapes. A plain property list (a value like any other) has no such reason.
@Suite struct DumpDecodeErrorTests {
  /// A container holding one good archive and the three damaged messages.
  final class Fixture {
    let directory = TemporaryDirectory()
    var path: String { directory.path }

    /// What a terminal would act on, inside a value the XML reader quotes in its reason.
    static let hostile = "\u{1B}]0;owned\u{07}\u{1B}[31m"

    init() throws {
      #expect(try run(["pass", "--container", directory.path, "good", #"{"n":1}"#]).status == 0)
      let archive = try #require(FileManager.default.contents(atPath: path + "/good.archive"))
      write("truncated", Data(archive.prefix(archive.count / 2)))
      write(
        "notarchive",
        Data(
          #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>$archiver</key><string>NSKeyedArchiver</string><key>$top</key><dict/></dict></plist>"#
            .utf8))
      write(
        "plain", Data(#"<plist version="1.0"><dict><key>a</key><integer>1</integer></dict></plist>"#.utf8))
      write("hostile", Data("<plist version=\"1.0\"><real>\(Self.hostile)</real></plist>".utf8))
    }

    deinit { directory.remove() }

    private func write(_ identifier: String, _ bytes: Data) {
      #expect(FileManager.default.createFile(atPath: path + "/\(identifier).archive", contents: bytes))
    }
  }

  @Test func theJSONSaysWhyEachMessageDidNotDecode() throws {
    let fixture = try Fixture()
    let dumped = try run(["dump", "--json", "--container", fixture.path])
    #expect(dumped.status == 0, "\(dumped.errors)")
    // JSON escaping: nothing a terminal acts on is written raw.
    #expect(!dumped.outputData.contains(0x1B) && !dumped.outputData.contains(0x07))
    let document = try #require(try JSONSerialization.jsonObject(with: dumped.outputData) as? [String: Any])
    let directory = try #require((document["directories"] as? [[String: Any]])?.first)
    let mailboxes = try #require(directory["mailboxes"] as? [[String: Any]])
    var byName: [String: [String: Any]] = [:]
    for mailbox in mailboxes { byName[mailbox["identifier"] as? String ?? ""] = mailbox }
    #expect(byName.count == 5, "\(byName.keys)")
    for name in ["good", "plain"] {
      #expect(byName[name]?["decode_error"] is NSNull, "\(name): \(byName[name] ?? [:])")
    }
    let truncated = byName["truncated"]?["decode_error"] as? String
    #expect(truncated?.contains("binary property list") == true, "\(truncated ?? "nil")")
    #expect(
      byName["notarchive"]?["decode_error"] as? String == "not a keyed archive: there is no $objects key",
      "\(byName["notarchive"] ?? [:])")
    #expect((byName["notarchive"]?["summary"] as? String)?.hasPrefix("(damaged archive) ") == true)
    let hostile = byName["hostile"]?["decode_error"] as? String
    #expect(hostile?.contains(Fixture.hostile) == true, "the exact reason, JSON-escaped: \(hostile ?? "nil")")
    // Each was read: `error` stays the file's own (none), and each counts as present.
    for (name, mailbox) in byName {
      #expect(mailbox["error"] is NSNull, "\(name)")
      #expect(mailbox["present"] as? Bool == true, "\(name)")
    }
  }

  @Test func theTextSaysWhyEscaped() throws {
    let fixture = try Fixture()
    let dumped = try run(["dump", "--container", fixture.path])
    #expect(dumped.status == 0, "\(dumped.errors)")
    #expect(!dumped.outputData.contains(0x1B) && !dumped.outputData.contains(0x07), "\(dumped.output)")
    let rows = dumped.lines.filter { $0.hasPrefix("  ") }
    func row(_ name: String) -> String { rows.first { $0.hasPrefix("  \(name) ") } ?? "" }
    #expect(row("good").contains("{n: 1}") && !row("good").contains("decode error"), "\(row("good"))")
    #expect(!row("plain").contains("decode error"), "\(row("plain"))")
    #expect(
      row("notarchive").hasSuffix(" decode error: not a keyed archive: there is no $objects key"),
      "\(row("notarchive"))")
    #expect(row("notarchive").contains("(damaged archive) "))
    #expect(row("truncated").contains(" decode error: "), "\(row("truncated"))")
    #expect(row("truncated").contains("binary property list"))
    #expect(row("hostile").contains(" decode error: "), "\(row("hostile"))")
    #expect(
      row("hostile").contains("\\u{1b}]0;owned\\u{7}"), "escaped as DisplayText escapes: \(row("hostile"))")
    // The counts are those of readable messages: none of these is unreadable.
    #expect(dumped.lines.first?.hasSuffix("(5 mailboxes)") == true, "\(dumped.lines.first ?? "")")
  }

  @Test func aDeviceSetsGroupsSayWhyToo() throws {
    let set = RealisticDeviceSet()
    let container = set.container(RealisticDeviceSet.oldWatch, RealisticDeviceSet.oldWatchGroup).lossyText
    #expect(
      FileManager.default.createFile(
        atPath: container + "/broken.archive",
        contents: Data(
          #"<plist version="1.0"><dict><key>$archiver</key><string>NSKeyedArchiver</string></dict></plist>"#
            .utf8))
    )
    let text = try run(["dump", "--device-set", set.builder.root.lossyText])
    #expect(text.status == 0, "\(text.errors)")
    let row = text.lines.first { $0.contains("broken ") } ?? ""
    #expect(row.contains("decode error: not a keyed archive: there is no $objects key"), "\(text.output)")
    let json = try run(["dump", "--json", "--device-set", set.builder.root.lossyText])
    #expect(json.output.contains(#""decode_error":"not a keyed archive: there is no $objects key""#))
  }
}
