import Foundation
import Testing
import Wormhole

/// `wormhole-tui dump`, as scripts use it.
@Suite struct DumpVerbTests {
  @Test func dumpPrintsDirectoriesMailboxesAndTrafficAsOneJSONDocument() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    #expect(
      try run(["pass", "button", #"{"n":1}"#, "--home", home.path, "--group", "g", "--sender", "app"]).status
        == 0)
    #expect(
      try run(["pass", "other", "2", "--home", home.path, "--group", "h", "--directory", "sub"]).status == 0)
    let dumped = try run(["dump", "--json", "--home", home.path])
    #expect(dumped.status == 0, "\(dumped.errors)")
    let document = try #require(try JSONSerialization.jsonObject(with: dumped.outputData) as? [String: Any])
    let directories = try #require(document["directories"] as? [[String: Any]])
    #expect(
      directories.compactMap { $0["path"] as? String } == [
        home.path + "/AppGroup/g", home.path + "/AppGroup/h/sub",
      ])
    let mailbox = try #require((directories.first?["mailboxes"] as? [[String: Any]])?.first)
    #expect(mailbox["identifier"] as? String == "button")
    #expect(mailbox["last_writer"] as? String == "app")
    #expect(mailbox["summary"] as? String == "{n: 1}")
    let traffic = try #require(document["traffic"] as? [[String: Any]])
    #expect(traffic.compactMap { $0["kind"] as? String } == ["passed", "passed"])
    let text = try run(["dump", "--home", home.path])
    #expect(text.output.contains("button 253B v1"), "\(text.output)")
  }

  @Test func followPrintsEachTrafficEntryAsOneJSONLine() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let follower = try RunningCommand(["dump", "--follow", "--json", "--container", directory.path])
    #expect(follower.waitFor("watching 1 wormhole directory below"))
    #expect(try run(["pass", "a", "1", "--container", directory.path, "--sender", "script"]).status == 0)
    #expect(try run(["clear", "a", "--container", directory.path]).status == 0)
    #expect(follower.waitFor("\"kind\":\"cleared\"", inErrors: false))
    follower.interrupt()
    let lines = follower.finish().lines
    let entries = lines.compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(entries.count == lines.count)
    #expect(entries.compactMap { $0["kind"] as? String } == ["passed", "cleared"])
    #expect(entries.first?["sender"] as? String == "script")
  }

  @Test func missingRootIsAFailureThatSaysWhatToDo() throws {
    let result = try run(["dump", "/nonexistent/wormhole-root"])
    #expect(result.status == 3)
    #expect(result.errors.contains("/nonexistent/wormhole-root"))
  }
}
