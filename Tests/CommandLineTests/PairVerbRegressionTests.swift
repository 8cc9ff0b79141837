import Foundation
import Glibc
import TestSupport
import Testing

/// Regressions of the verbs on pairs of simulated devices found from outside (red team 2): the
/// snapshot's pairs branch, listen on a device, a forced delete, a message on a full outbox
/// directory, a damaged context file, stale help texts. Waits are on output lines.
@Suite(.hangLimit) struct PairVerbRegressionTests {
  typealias PairHome = PairVerbTests.PairHome

  @Test func snapshotShowsThePairsBranchOfTheHome() throws {
    let pairs = try PairHome(pair: "desk")
    let snapshot = try run(["snapshot", "--size", "120x30"] + pairs.home)
    #expect(snapshot.status == 0, "\(snapshot.errors)")
    #expect(snapshot.output.contains("desk  phone ○ watch ○"), "\(snapshot.output)")
  }

  @Test func listenOnADeviceHearsWhatItReceivesByEverySessionType() throws {
    let pairs = try PairHome()
    // --echo and --reply-timeout: the sender waits for the watch to have the message (a pass
    // that ends at once can lose it, see the report).
    let watch = try pairs.device("watch", ["--echo"])
    defer {
      watch.interrupt()
      _ = watch.finish()
    }
    let listen = try RunningCommand(
      ["listen", "f", "m", "c", "--count", "3", "--timeout", "20", "--pair", "p", "--role", "watch"]
        + pairs.home)
    try #require(listen.waitFor("listening for"), "\(listen.currentErrors)")
    // The phone's own sends are not heard by a listener on the phone.
    let phoneListen = try RunningCommand(
      ["listen", "f", "m", "c", "--timeout", "3", "--pair", "p", "--role", "phone"] + pairs.home)
    try #require(phoneListen.waitFor("listening for"), "\(phoneListen.currentErrors)")
    #expect(try pairs.pass("session-file", ["f", "\"file\""]).status == 0)
    #expect(try pairs.pass("session-message", ["m", "\"msg\"", "--reply-timeout", "20"]).status == 0)
    #expect(try pairs.pass("session-context", ["c", "\"ctx\""]).status == 0)
    let heard = listen.finish()
    #expect(heard.status == 0, "\(heard.errors)")
    #expect(heard.lines.contains("f: \"file\""), "\(heard.output)")
    #expect(
      heard.lines.contains("m: (session-message from p/phone: live only, its message is never stored)"),
      "\(heard.output) \(heard.errors) watch: \(watch.currentOutput) \(watch.currentErrors)")
    #expect(heard.lines.contains("c: \"ctx\""), "\(heard.output)")
    let phoneHeard = phoneListen.finish()
    #expect(phoneHeard.output.isEmpty, "\(phoneHeard.output)")
  }

  @Test func aForcedDeleteStopsTheRunningDevicesFirst() throws {
    let pairs = try PairHome()
    let watch = try pairs.device("watch")
    let pid = try #require(try pairs.pid(of: "watch"))
    let deleted = try run(["pair", "delete", "p", "--force"] + pairs.home)
    #expect(deleted.status == 0, "\(deleted.errors)")
    #expect(deleted.errors.contains("stopped the watch of p (pid \(pid))"), "\(deleted.errors)")
    // Ended already (a zombie until reaped): the delete waited for its end.
    let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?
      .split(separator: ")").last?.split(separator: " ").first
    #expect(state == nil || state == "Z", "the watch still runs: \(String(describing: state))")
    let ended = watch.finish(seconds: 10)
    #expect(ended.reason == .exit && ended.status == 0, "\(ended.errors)")
  }

  @Test func aLiveMessageNeedsNoRewriteOfTheOutbox() throws {
    let pairs = try PairHome()
    // A queue with a removal record (compactable: an emptied queue is truncated instead), the
    // watch down.
    #expect(try pairs.pass("session-file", ["t", "\"x\""]).status == 0)
    #expect(try pairs.pass("session-file", ["u", "\"y\""]).status == 0)
    let cancelled = try run(["transfers", "cancel", "1", "--pair", "p", "--role", "phone"] + pairs.home)
    #expect(cancelled.status == 0, "\(cancelled.errors)")
    let watch = try pairs.device("watch", ["--echo"])
    defer {
      watch.interrupt()
      _ = watch.finish()
    }
    // The rewrite's temporary file cannot be made (its name is taken): as on a full disk.
    let outbox = pairs.path + "/pairs/p/phone/outbox"
    let sent = try runShell(
      "mkdir \"$1/.device-$$-1.tmp\" && exec \"$0\" pass m '\"hi\"' --transiting session-message "
        + "--reply-timeout 20 --pair p --role phone --home \"$2\"", [outbox, pairs.path])
    #expect(sent.status == 0, "\(sent.errors)")
    #expect(watch.waitFor("hi", inErrors: false), "\(watch.currentErrors)")
  }

  @Test func aDamagedContextFileIsNamedWithAWayOut() throws {
    let pairs = try PairHome()
    let path = pairs.path + "/pairs/p/phone/application-context"
    try Data("WDC1garbage".utf8).write(to: URL(fileURLWithPath: path))
    for arguments in [
      ["device", "run", "--pair", "p", "--role", "phone"],
      ["read", "c", "--transiting", "session-context", "--pair", "p", "--role", "phone"],
    ] {
      let result = try run(arguments + pairs.home)
      #expect(result.status == 3, "\(arguments): \(result.errors)")
      #expect(result.errors.contains("the context file \(path) is damaged"), "\(result.errors)")
      #expect(result.errors.contains("move it aside (mv \(path) \(path).damaged)"), "\(result.errors)")
    }
    #expect(FileManager.default.fileExists(atPath: path), "the damaged file is kept")
  }

  @Test func passHelpSaysItSendsThroughARunningDevice() throws {
    let help = try run(["pass", "--help"])
    #expect(help.output.contains("sends through"), "\(help.output)")
    #expect(!help.output.contains("holds the role (exit 3)"), "\(help.output)")
  }
}
