import Foundation
import Testing

/// `peer send --string TEXT` sends text as it is, as `pass --string` passes it (and the
/// dashboard's `:peer-send` sends what is typed); JSON DATA and `@FILE` go on working, and a
/// DATA that is not JSON is told about `--string`. Waits are on output lines, never on time.
@Suite struct PeerSendStringTests {
  typealias PeerHome = PeerVerbTests.PeerHome

  @Test func textIsSentAsItIsBesideJSONAndAFile() throws {
    let peers = PeerHome()
    let host = try peers.peer("host", ["--advertise", "--accept", "always", "--json"])
    let guest = try peers.peer("guest", ["--browse"])
    #expect(guest.command.waitFor("found \(host.label)", inErrors: false), "\(guest.command.currentOutput)")
    #expect(try peers.peer(["invite", "--from", "guest", "--to", "host"]).status == 0)
    let text = "hi there, not JSON: {"
    let sent = try peers.peer([
      "send", "--from", "guest", "--to", "host", "--mode", "reliable", "--string", text,
    ])
    #expect(sent.status == 0, "\(sent.errors)")
    let json = try peers.peer(["send", "--from", "guest", "--to", "host", "--mode", "reliable", #""hi""#])
    #expect(json.status == 0, "\(json.errors)")
    let file = peers.path + "/data.bin"
    #expect(FileManager.default.createFile(atPath: file, contents: Data("from a file".utf8)))
    let fromFile = try peers.peer([
      "send", "--from", "guest", "--to", "host", "--mode", "reliable", "@" + file,
    ])
    #expect(fromFile.status == 0, "\(fromFile.errors)")
    // Empty text is text too.
    let empty = try peers.peer([
      "send", "--from", "guest", "--to", "host", "--mode", "reliable", "--string", "",
    ])
    #expect(empty.status == 0, "\(empty.errors)")
    #expect(host.command.waitFor(#""bytes":0,"text":"""#, inErrors: false), "\(host.command.currentOutput)")
    let received = host.command.currentOutput.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }.filter { $0["event"] as? String == "data" }
    // Reliable: in order, each exactly as given.
    #expect(
      received.compactMap { $0["text"] as? String } == [text, #""hi""#, "from a file", ""], "\(received)")
    #expect(received.compactMap { $0["bytes"] as? Int } == [text.utf8.count, 4, 11, 0])
  }

  @Test func stringAndDataTogetherOrNeitherAreUsageErrors() throws {
    let peers = PeerHome()
    let base = ["send", "--from", "a", "--to", "b", "--mode", "reliable"]
    let cases: [([String], String)] = [
      (base + ["--string", "hi", "1"], "--string"),
      (base + ["--string", "hi", "@/dev/null"], "--string"),
      (base, "--string"),
    ]
    for (arguments, rule) in cases {
      let result = try peers.peer(arguments)
      #expect(result.status == 2, "\(arguments): \(result.errors)")
      #expect(result.errors.contains(rule), "\(arguments): \(result.errors)")
    }
    // Text that is not JSON is told to use --string.
    let notJSON = try peers.peer(base + ["hi"])
    #expect(notJSON.status == 2)
    #expect(notJSON.errors.contains("DATA is "), "\(notJSON.errors)")
    #expect(notJSON.errors.contains("send text with --string TEXT"), "\(notJSON.errors)")
    let help = try run(["peer", "--help"])
    #expect(help.status == 0)
    #expect(help.output.contains("--mode reliable|unreliable DATA|--string TEXT"), "\(help.output)")
    #expect(help.output.contains("--string"), "\(help.output)")
  }
}
