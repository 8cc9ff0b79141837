import Foundation
import TestSupport
import Testing

/// `listen` hears what was passed after its process started, even before its listeners were
/// installed (`listen ID &` then `pass ID` at once), and nothing passed before. The race is made
/// certain with `listen`'s test seam: with `WORMHOLE_TUI_TEST_HOLD_BEFORE_LISTENING` set it says
/// `holding before listening` and waits for a line on standard input before it listens, so a
/// pass made meanwhile comes after the process started and before its listener exists.
@Suite struct ListenFromStartTests {
  static let hold = ["WORMHOLE_TUI_TEST_HOLD_BEFORE_LISTENING": "1"]

  @Test func aMessagePassedAfterListenStartedAndBeforeItListensIsHeard() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let listener = try RunningCommand(
      ["listen", "button", "--count", "1", "--json", "--timeout", "20"] + location, environment: Self.hold)
    #expect(listener.waitFor("holding before listening"))
    #expect(try run(["pass", "button", #"{"n":1}"#] + location).status == 0)
    listener.write("\n")
    let heard = listener.finish(seconds: 40)
    #expect(heard.status == 0, "\(heard.errors)")
    #expect(heard.lines.count == 1, "\(heard.output)")
    let line = try JSONSerialization.jsonObject(with: Data((heard.lines.first ?? "").utf8)) as? NSDictionary
    #expect(line?["identifier"] as? String == "button", "\(heard.output)")
    #expect(line?["message"] as? NSDictionary == ["n": 1] as NSDictionary, "\(heard.output)")
  }

  @Test func aMessagePassedBeforeListenStartedIsNotHeard() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    // Passed just before the listener's process starts: never replayed, even a millisecond old.
    #expect(try run(["pass", "old", "1"] + location).status == 0)
    let listener = try RunningCommand(
      ["listen", "old", "new", "--count", "1", "--timeout", "20"] + location, environment: Self.hold)
    #expect(listener.waitFor("holding before listening"))
    #expect(try run(["pass", "new", "2"] + location).status == 0)
    listener.write("\n")
    let heard = listener.finish(seconds: 40)
    #expect(heard.status == 0, "\(heard.errors)")
    #expect(heard.lines == ["new: 2"], "\(heard.output)")
  }

  @Test func severalIdentifiersCaughtUpThenLiveAreEachHeardOnce() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let listener = try RunningCommand(
      ["listen", "a", "b", "--count", "3", "--timeout", "20"] + location, environment: Self.hold)
    #expect(listener.waitFor("holding before listening"))
    #expect(try run(["pass", "a", "1"] + location).status == 0)
    #expect(try run(["pass", "b", "2"] + location).status == 0)
    listener.write("\n")
    #expect(listener.waitFor("listening for"))
    // Heard in the catch-up before `listening for`: the same records live are not heard again.
    #expect(listener.waitFor("b: 2", inErrors: false))
    #expect(try run(["pass", "a", "3"] + location).status == 0)
    let heard = listener.finish(seconds: 40)
    #expect(heard.status == 0, "\(heard.errors)")
    #expect(heard.lines == ["a: 1", "b: 2", "a: 3"], "\(heard.output)")
  }

  @Test func withoutACountTheCatchUpCountsAsHeardAtTheTimeout() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    let listener = try RunningCommand(["listen", "a", "--timeout", "1"] + location, environment: Self.hold)
    #expect(listener.waitFor("holding before listening"))
    #expect(try run(["pass", "a", "5"] + location).status == 0)
    listener.write("\n")
    let heard = listener.finish(seconds: 40)
    #expect(heard.status == 0, "\(heard.errors)")
    #expect(heard.lines == ["a: 5"], "\(heard.output)")
  }

  /// `--pair/--role`: `listen` hears the journal of the device's group container, where the
  /// watch records the session file it stored; caught up the same way.
  @Test func aSessionFileStoredAfterListenStartedAndBeforeItListensIsHeard() throws {
    let pairs = try PairVerbTests.PairHome()
    let device = ["--pair", "p", "--role", "watch", "--group", "group.example"] + pairs.home
    let watch = try pairs.device("watch", ["--group", "group.example"])
    let listener = try RunningCommand(
      ["listen", "doc", "--count", "1", "--json", "--timeout", "20"] + device, environment: Self.hold)
    #expect(listener.waitFor("holding before listening"))
    let sent = try pairs.pass("session-file", ["doc", #"{"page":2}"#])
    #expect(sent.status == 0 && sent.errors.contains("was stored by the watch"), "\(sent.errors)")
    listener.write("\n")
    let heard = listener.finish(seconds: 40)
    #expect(heard.status == 0 && heard.output.contains(#""message":{"page":2}"#), "\(heard.output)")
    #expect(heard.lines.count == 1, "\(heard.output)")
    watch.interrupt()
    #expect(watch.finish().status == 0)
  }
}
