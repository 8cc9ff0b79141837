import Foundation
import Glibc
import Testing

/// `pair`, `device run`, `transfers` and the session types of `pass`/`read`/`clear`, each run as
/// its own process on a hermetic home. Waits are on output lines, never on time.
@Suite struct PairVerbTests {
  /// A home with one pair, `p`, created.
  final class PairHome {
    let directory = TemporaryDirectory()
    var path: String { directory.path }
    var home: [String] { ["--home", path] }

    init(pair: String = "p") throws {
      let created = try run(["pair", "create", pair] + home)
      #expect(created.status == 0, "\(created.errors)")
    }

    deinit { directory.remove() }

    func device(_ role: String, _ extra: [String] = []) throws -> RunningCommand {
      let command = try RunningCommand(["device", "run", "--pair", "p", "--role", role] + extra + home)
      #expect(command.waitFor("activated"), "\(command.currentErrors)")
      return command
    }

    func pass(_ type: String, _ arguments: [String], role: String = "phone") throws -> CommandResult {
      try run(["pass"] + arguments + ["--transiting", type, "--pair", "p", "--role", role] + home)
    }

    /// `pair list --json`'s object for `p`.
    func listed() throws -> [String: Any] {
      let list = try run(["pair", "list", "--json"] + home)
      #expect(list.status == 0, "\(list.errors)")
      let line = try #require(list.lines.first)
      return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func pid(of role: String) throws -> Int32? {
      ((try listed()[role] as? [String: Any])?["pid"] as? NSNumber)?.int32Value
    }

    /// Runs `body` with the `role`'s `device run` started and then stopped with SIGSTOP (its
    /// pid given); afterwards it is continued and interrupted.
    func whileStopped(_ role: String, _ body: (_ pid: Int32) throws -> Void) throws {
      let device = try device(role)
      let pid = try #require(try pid(of: role))
      kill(pid, SIGSTOP)
      defer {
        kill(pid, SIGCONT)
        device.interrupt()
        _ = device.finish()
      }
      try body(pid)
    }
  }

  @Test func pairsAreCreatedListedAndDeleted() throws {
    let pairs = try PairHome()
    let again = try run(["pair", "create", "p"] + pairs.home)
    #expect(again.status == 3 && again.errors.contains("exists already"), "\(again.errors)")
    #expect(try run(["pair", "create", "q"] + pairs.home).status == 0)
    let list = try run(["pair", "list"] + pairs.home)
    #expect(
      list.lines == [
        "p: phone not running, 0 queued; watch not running, 0 queued; reachability unknown (no device of the pair runs here)",
        "q: phone not running, 0 queued; watch not running, 0 queued; reachability unknown (no device of the pair runs here)",
      ], "\(list.output)")
    let object = try pairs.listed()
    // Neither runs here: either may run on another machine, through a broker.
    #expect(object["name"] as? String == "p" && object["reachable"] is NSNull)
    #expect(object["reachabilityUnknown"] as? String == "no device of the pair runs here")
    #expect((object["watch"] as? [String: Any])?["queuedTransfers"] as? Int == 0)
    #expect(FileManager.default.fileExists(atPath: pairs.path + "/pairs/p/pair.json"))
    #expect(try run(["pair", "delete", "p"] + pairs.home).status == 0)
    #expect(try run(["pair", "list"] + pairs.home).lines == [list.lines[1]])
    let missing = try run(["pair", "delete", "p"] + pairs.home)
    #expect(missing.status == 3 && missing.errors.contains("there is no pair named p"), "\(missing.errors)")
  }

  @Test(arguments: ["bad\u{1B}[31m", "a/b", "..", "", String(repeating: "x", count: 65)])
  func invalidPairNamesExitTwoEscaped(name: String) throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    for arguments in [["pair", "create", name], ["pair", "delete", name], ["transfers", "--pair", name]] {
      let result = try run(arguments + ["--home", home.path])
      #expect(result.status == 2, "\(arguments): \(result.errors)")
      #expect(result.errors.contains("cannot name a pair"), "\(result.errors)")
      #expect(!result.errors.unicodeScalars.contains("\u{1B}"), "the escape reached the terminal")
    }
    #expect(!FileManager.default.fileExists(atPath: home.path + "/pairs/" + "a"))
  }

  @Test func aRunningDeviceIsListedRefusesASecondRunAndADeleteAndStopsOnSIGINT() throws {
    let pairs = try PairHome()
    let watch = try pairs.device("watch")
    let pid = try #require(try pairs.pid(of: "watch"))
    #expect(watch.currentErrors.contains("pid \(pid)"))
    #expect(try pairs.pid(of: "phone") == nil)
    let second = try run(["device", "run", "--pair", "p", "--role", "watch"] + pairs.home)
    #expect(second.status == 3 && second.errors.contains("already running (pid \(pid))"), "\(second.errors)")
    let delete = try run(["pair", "delete", "p"] + pairs.home)
    #expect(delete.status == 3 && delete.errors.contains("pid \(pid)"), "\(delete.errors)")
    let phone = try pairs.device("phone")
    #expect(phone.waitFor("the watch is reachable"))
    #expect(try pairs.listed()["reachable"] as? Bool == true)
    phone.interrupt()
    let stopped = phone.finish()
    #expect(stopped.status == 0 && stopped.reason == .exit, "\(stopped.errors)")
    #expect(watch.waitFor("the phone is not reachable"))
    #expect(try pairs.pid(of: "phone") == nil)
    #expect(try run(["pair", "delete", "p", "--force"] + pairs.home).status == 0)
    watch.interrupt()
    #expect(watch.finish().status == 0)
  }

  @Test func aSessionMessageIsPrintedAndItsReplyComesBack() throws {
    let pairs = try PairHome()
    let watch = try pairs.device("watch", ["--json", "--reply", #"{"ok":true}"#])
    let sent = try pairs.pass("session-message", ["greet", #"{"n":1}"#, "--reply-timeout", "20"])
    #expect(sent.status == 0, "\(sent.errors)")
    #expect(sent.lines == [#"{"ok":true}"#])
    #expect(watch.waitFor("\"greet\"", inErrors: false))
    let line = try #require(watch.currentOutput.split(separator: "\n").first)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(object["identifier"] as? String == "greet")
    #expect(object["transiting"] as? String == "session-message")
    #expect(object["message"] as? [String: Int] == ["n": 1])
    #expect(object["sequence"] as? Int == 1)
    #expect((object["time"] as? String)?.hasSuffix("Z") == true)
    // SIGTERM stops it cleanly too, and its role is free at once.
    let pid = try #require(try pairs.pid(of: "watch"))
    kill(pid, SIGTERM)
    let stopped = watch.finish()
    #expect(stopped.status == 0 && stopped.reason == .exit, "\(stopped.errors)")
    #expect(try pairs.pid(of: "watch") == nil)
  }

  @Test func anEchoingDeviceAnswersWithTheMessageAndTextLinesNameTheType() throws {
    let pairs = try PairHome()
    let watch = try pairs.device("watch", ["--echo"])
    let sent = try pairs.pass("session-message", ["ping", "--string", "hello", "--reply-timeout", "20"])
    #expect(sent.status == 0 && sent.lines == [#""hello""#], "\(sent.errors)")
    #expect(watch.waitFor("session-message #1 ping: \"hello\"", inErrors: false), "\(watch.currentOutput)")
    watch.interrupt()
    #expect(watch.finish().status == 0)
  }

  /// Regression: a message larger than the socket's buffer, sent by a `pass` that stops at once,
  /// was cut short when the link closed with bytes still queued ("a frame was cut short").
  @Test func aLargeMessageFromAPassThatStopsAtOnceArrivesWhole() throws {
    let pairs = try PairHome()
    let container = pairs.path + "/container"
    try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
    let text = String(repeating: "x", count: 1_000_000)
    let made = try run(["pass", "big", "--lines", "--container", container], input: "\"\(text)\"\n")
    #expect(made.status == 0, "\(made.errors)")
    let watch = try pairs.device("watch", ["--json"])
    let sent = try pairs.pass("session-message", ["big", "--archive", container + "/big.archive"])
    #expect(sent.status == 0, "\(sent.errors)")
    // The hang-up is read after every byte before it: by then the message was printed, or refused.
    #expect(watch.waitFor("the phone is not reachable"), "\(watch.currentErrors)")
    #expect(watch.waitFor("\"sequence\":1", inErrors: false), "\(watch.currentErrors)")
    let line = try #require(watch.currentOutput.split(separator: "\n").first)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect((object["message"] as? String)?.count == text.count)
    #expect(!watch.currentErrors.contains("refused"), "\(watch.currentErrors)")
    watch.interrupt()
    #expect(watch.finish().status == 0)
  }

  /// Regression: a `pass` that sends a message and ends at once releases its run lock before the
  /// watch accepts its connection, and the link's check of the peer against the run lock took it
  /// for a stray connection: the pass said 0 and the watch never got the message.
  @Test func messagesFromPassesThatEndAtOnceAllArrive() throws {
    let pairs = try PairHome()
    let watch = try pairs.device("watch")
    for index in 1...12 {
      let sent = try pairs.pass("session-message", ["tap", "\(index)"])
      #expect(sent.status == 0, "\(sent.errors)")
    }
    for index in 1...12 {
      #expect(watch.waitFor("tap: \(index)", inErrors: false), "\(watch.currentOutput)")
    }
    watch.interrupt()
    #expect(watch.finish().status == 0)
  }

  @Test func aMessageToAnAbsentCounterpartIsNotReachable7007() throws {
    let pairs = try PairHome()
    let sent = try pairs.pass("session-message", ["greet", "1"])
    #expect(sent.status == 3)
    #expect(sent.errors.contains("not reachable (WCErrorCodeNotReachable 7007)"), "\(sent.errors)")
    // Both causes are named: the counterpart not running, or a broker between them not reached.
    #expect(sent.errors.contains("not running (start it with device run)"), "\(sent.errors)")
    #expect(sent.errors.contains("over a broker"), "\(sent.errors)")
    // The verb was the phone only while it sent.
    #expect(try pairs.pid(of: "phone") == nil)
  }

  @Test func noReplyInTimeIs7012() throws {
    let pairs = try PairHome()
    let watch = try pairs.device("watch")
    let sent = try pairs.pass("session-message", ["greet", "1", "--reply-timeout", "0.2"])
    #expect(sent.status == 3 && sent.output.isEmpty)
    #expect(sent.errors.contains("reply timed out (7012)"), "\(sent.errors)")
    #expect(watch.waitFor("session-message #1 greet: 1", inErrors: false))
    watch.interrupt()
    #expect(watch.finish().status == 0)
  }

  @Test func passSendsThroughTheDeviceRunThatHoldsItsRole() throws {
    let pairs = try PairHome()
    let phone = try pairs.device("phone")
    // The watch is down: the running phone answers for the pass, with the session's errors.
    let unreachable = try pairs.pass("session-message", ["m", "1"])
    #expect(unreachable.status == 3, "\(unreachable.errors)")
    #expect(
      unreachable.errors.contains("not reachable (WCErrorCodeNotReachable 7007)"), "\(unreachable.errors)")
    let context = try pairs.pass("session-context", ["c", "1"])
    #expect(
      context.status == 0 && context.errors.contains("context version 1 is queued"), "\(context.errors)")
    let file = try pairs.pass("session-file", ["f", "1"])
    #expect(file.status == 0 && file.errors.contains("transfer 1 is queued"), "\(file.errors)")
    let watch = try pairs.device("watch", ["--echo"])
    #expect(phone.waitFor("the watch is reachable"))
    let replied = try pairs.pass("session-message", ["m", #"{"x":1}"#, "--reply-timeout", "20"])
    #expect(replied.status == 0 && replied.lines == [#"{"x":1}"#], "\(replied.errors)")
    // And from the watch's side, through its own device run, to the phone that does not reply.
    let timedOut = try pairs.pass("session-message", ["m", "2", "--reply-timeout", "0.2"], role: "watch")
    #expect(timedOut.status == 3 && timedOut.errors.contains("reply timed out (7012)"), "\(timedOut.errors)")
    #expect(watch.waitFor("session-file #1 f: 1", inErrors: false), "\(watch.currentOutput)")
    #expect(watch.waitFor("session-context #1 c: 1", inErrors: false), "\(watch.currentOutput)")
    #expect(phone.waitFor("session-message #1 m: 2", inErrors: false), "\(phone.currentOutput)")
    for device in [watch, phone] {
      device.interrupt()
      #expect(device.finish().status == 0)
    }
    #expect(!FileManager.default.fileExists(atPath: pairs.path + "/pairs/p/phone/control.sock"))
  }

  @Test func contextsAndTransfersWaitOnDiskUntilBothDevicesRun() throws {
    let pairs = try PairHome()
    let context = try pairs.pass("session-context", ["mood", #""calm""#])
    #expect(
      context.status == 0 && context.errors.contains("context version 1 is queued"), "\(context.errors)")
    for value in ["[1]", "[2]", "[3]"] {
      let queued = try pairs.pass("session-file", ["doc", value])
      #expect(queued.status == 0 && queued.errors.contains("is queued"), "\(queued.errors)")
    }
    let listed = try run(["transfers", "--pair", "p", "--json"] + pairs.home)
    #expect(listed.status == 0 && listed.lines.count == 3, "\(listed.output)\(listed.errors)")
    let first = try #require(
      try JSONSerialization.jsonObject(with: Data(listed.lines[0].utf8)) as? [String: Any])
    #expect(first["role"] as? String == "phone" && first["id"] as? Int == 1)
    #expect(first["metadata"] as? [String: String] == ["identifier": "doc"])
    #expect(try pairs.listed()["phone"].flatMap { ($0 as? [String: Any])?["queuedTransfers"] as? Int } == 3)
    let cancelled = try run(["transfers", "cancel", "2", "--pair", "p", "--role", "phone"] + pairs.home)
    #expect(cancelled.status == 0, "\(cancelled.errors)")
    let text = try run(["transfers", "--pair", "p"] + pairs.home)
    #expect(
      text.lines.map { $0.split(separator: " ").prefix(3).joined(separator: " ") } == [
        "phone 1 doc", "phone 3 doc",
      ])
    let again = try run(["transfers", "cancel", "2", "--pair", "p", "--role", "phone"] + pairs.home)
    #expect(again.status == 3 && again.errors.contains("no outstanding transfer 2"), "\(again.errors)")
    // The watch runs; the phone's next send connects the two, and everything waiting arrives:
    // the newest context, then the transfers in order, the cancelled one never.
    let watch = try pairs.device("watch")
    let nudge = try pairs.pass("session-context", ["other", "true"])
    #expect(nudge.status == 0 && nudge.errors.contains("was stored by the watch"), "\(nudge.errors)")
    #expect(watch.waitFor("session-file #3 doc: [3]", inErrors: false), "\(watch.currentOutput)")
    #expect(watch.waitFor("session-context #2 other: true", inErrors: false), "\(watch.currentOutput)")
    let lines = watch.currentOutput.split(separator: "\n").map(String.init)
    #expect(lines.contains("session-context #1 mood: \"calm\""))
    #expect(
      lines.filter { $0.hasPrefix("session-file") } == [
        "session-file #1 doc: [1]", "session-file #3 doc: [3]",
      ])
    watch.interrupt()
    #expect(watch.finish().status == 0)
    // What arrived is read back on the watch: the transfer's mailbox and the received context.
    let file = try run(
      ["read", "doc", "--json", "--transiting", "session-file", "--pair", "p", "--role", "watch"] + pairs.home
    )
    #expect(file.status == 0 && file.lines == ["[3]"], "\(file.errors)")
    let mood = try run(
      ["read", "mood", "--json", "--transiting", "session-context", "--pair", "p", "--role", "watch"]
        + pairs.home)
    #expect(mood.status == 0 && mood.lines == [#""calm""#], "\(mood.errors)")
    #expect(try run(["transfers", "--pair", "p"] + pairs.home).output.isEmpty)
    let message = try run(
      ["read", "x", "--transiting", "session-message", "--pair", "p", "--role", "watch"] + pairs.home)
    #expect(message.status == 1 && message.errors.contains("never stored"), "\(message.errors)")
  }

  @Test func listenTailAndDumpFollowADevicesGroupContainers() throws {
    let pairs = try PairHome()
    let device = ["--pair", "p", "--role", "watch", "--group", "group.example"] + pairs.home
    let listener = try RunningCommand(["listen", "doc", "--count", "1", "--json"] + device)
    #expect(listener.waitFor("listening for doc in \(pairs.path)/pairs/p/watch/AppGroup/group.example"))
    let watch = try pairs.device("watch", ["--group", "group.example"])
    let sent = try pairs.pass("session-file", ["doc", #"{"page":2}"#])
    #expect(sent.status == 0 && sent.errors.contains("was stored by the watch"), "\(sent.errors)")
    let heard = listener.finish()
    #expect(heard.status == 0 && heard.output.contains(#""message":{"page":2}"#), "\(heard.output)")
    let tail = try run(["tail"] + device)
    #expect(
      tail.status == 0 && tail.lines.count == 1
        && tail.output.contains(" device session-file pass doc ")
        && tail.output.contains(" ok p/watch <- p/phone delivered"),
      "\(tail.output)")
    let dump = try run(["dump", "--pair", "p", "--role", "watch"] + pairs.home)
    #expect(
      dump.status == 0 && dump.output.contains("pairs/p/watch/AppGroup/group.example (1 mailbox)"),
      "\(dump.output)")
    let role = try run(["tail", "--role", "watch"] + pairs.home)
    #expect(role.status == 2 && role.errors.contains("give --pair NAME too"), "\(role.errors)")
    watch.interrupt()
    #expect(watch.finish().status == 0)
  }

  @Test func anIdenticalContextIsNotDeliveredUnlessAsked() throws {
    let pairs = try PairHome()
    #expect(try pairs.pass("session-context", ["k", "1"]).status == 0)
    let same = try pairs.pass("session-context", ["k", "1"])
    #expect(same.status == 0 && same.errors.contains("unchanged"), "\(same.errors)")
    let forced = try pairs.pass("session-context", ["k", "1", "--deliver-identical"])
    #expect(forced.status == 0 && forced.errors.contains("context version 2 is queued"), "\(forced.errors)")
  }

  @Test func garbageOnTheControlSocketIsRefusedAndTheDeviceGoesOnServing() throws {
    let pairs = try PairHome()
    let phone = try pairs.device("phone")
    let socket = pairs.path + "/pairs/p/phone/control.sock"
    // HTTP text, a frame header announcing 4 GB, a valid frame claiming the other role, and a
    // connection closed half-way: each is dropped without an answer, and nothing crashes.
    let script = """
      import socket, struct, sys
      def send(data):
          s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(data); s.shutdown(1)
          print(len(s.recv(100))); s.close()
      send(b"GET / HTTP/1.0\\r\\n\\r\\n")
      send(struct.pack(">I", 0xFFFFFFFF) + b"WD")
      send(struct.pack(">I", 36) + b"WD\\x01\\x02\\x02\\x00\\x00\\x00" + bytes(28))
      send(b"\\x00\\x00")
      """
    let hostile = try runProgram("/usr/bin/env", ["python3", "-c", script, socket])
    #expect(
      hostile.status == 0 && hostile.lines == ["0", "0", "0", "0"], "\(hostile.output)\(hostile.errors)")
    let sent = try pairs.pass("session-file", ["f", "1"])
    // Answered by the running phone (a pass that ran as the phone itself words it otherwise).
    #expect(
      sent.status == 0 && sent.errors.contains("transfer 1 is queued: the watch is not reachable"),
      "\(sent.errors)")
    phone.interrupt()
    #expect(phone.finish().status == 0)
  }

  @Test func aRunningDeviceCancelsAndClearsItsContextThroughItsControlSocket() throws {
    let pairs = try PairHome()
    #expect(try pairs.pass("session-file", ["doc", "1"]).status == 0)
    #expect(try pairs.pass("session-file", ["doc", "2"]).status == 0)
    #expect(try pairs.pass("session-context", ["k", "1"]).status == 0)
    let phone = try pairs.device("phone")
    let cancel = try run(["transfers", "cancel", "1", "--pair", "p", "--role", "phone"] + pairs.home)
    #expect(cancel.status == 0 && cancel.errors.contains("cancelled transfer 1"), "\(cancel.errors)")
    let missing = try run(["transfers", "cancel", "9", "--pair", "p", "--role", "phone"] + pairs.home)
    #expect(missing.status == 3 && missing.errors.contains("no outstanding transfer 9"), "\(missing.errors)")
    // The running phone removes k from its context itself: a new version, queued for the watch.
    let clear = try run(
      ["clear", "k", "--transiting", "session-context", "--pair", "p", "--role", "phone"] + pairs.home)
    #expect(
      clear.status == 0
        && clear.errors.contains("context version 2 of the phone is delivered when both devices run"),
      "\(clear.errors)")
    let gone = try run(
      ["read", "k", "--transiting", "session-context", "--pair", "p", "--role", "phone"] + pairs.home)
    #expect(gone.status == 1, "\(gone.output)")
    phone.interrupt()
    #expect(phone.finish().status == 0)
    let left = try run(["transfers", "--pair", "p"] + pairs.home)
    #expect(left.lines.map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == ["phone 2"])
    // Nothing left to clear: no new version, nothing said.
    let cleared = try run(
      ["clear", "k", "--transiting", "session-context", "--pair", "p", "--role", "phone"] + pairs.home)
    #expect(cleared.status == 0 && cleared.errors.isEmpty, "\(cleared.errors)")
    let read = try run(
      ["read", "k", "--transiting", "session-context", "--pair", "p", "--role", "phone"] + pairs.home)
    #expect(read.status == 1, "\(read.output)")
  }

  @Test func clearOfAContextWhileBothDevicesRunReachesTheWatchWithoutTheIdentifier() throws {
    let pairs = try PairHome()
    let watch = try pairs.device("watch")
    let phone = try pairs.device("phone")
    #expect(phone.waitFor("the watch is reachable"), "\(phone.currentErrors)")
    for (identifier, value) in [("k", "1"), ("j", "2")] {
      let sent = try pairs.pass("session-context", [identifier, value])
      #expect(sent.status == 0 && sent.errors.contains("was stored by the watch"), "\(sent.errors)")
    }
    #expect(watch.waitFor("session-context #2 j: 2", inErrors: false), "\(watch.currentOutput)")
    let clear = try run(
      ["clear", "k", "--transiting", "session-context", "--pair", "p", "--role", "phone"] + pairs.home)
    #expect(
      clear.status == 0 && clear.errors.contains("context version 3 of the phone was stored by the watch"),
      "\(clear.errors)")
    #expect(watch.waitFor("session-context #3 k: (removed)", inErrors: false), "\(watch.currentOutput)")
    for device in [watch, phone] {
      device.interrupt()
      #expect(device.finish().status == 0)
    }
    // The watch's received context has j and no longer k.
    let watchRead =
      ["--transiting", "session-context", "--pair", "p", "--role", "watch", "--json"] + pairs.home
    let j = try run(["read", "j"] + watchRead)
    #expect(j.status == 0 && j.lines == ["2"], "\(j.errors)")
    let k = try run(["read", "k"] + watchRead)
    #expect(k.status == 1, "\(k.output)")
  }

  @Test func aHomeDeeperThanASocketAddressStillServesTheControlSocket() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let deep = directory.path + "/" + String(repeating: "d", count: 120)
    try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
    let home = ["--home", deep]
    #expect(try run(["pair", "create", "p"] + home).status == 0)
    #expect((deep + "/pairs/p/phone/control.sock").utf8.count > 107)
    let phone = try RunningCommand(["device", "run", "--pair", "p", "--role", "phone"] + home)
    #expect(phone.waitFor("activated"), "\(phone.currentErrors)")
    let sent = try run(
      ["pass", "f", "1", "--transiting", "session-file", "--pair", "p", "--role", "phone"] + home)
    #expect(
      sent.status == 0 && sent.errors.contains("transfer 1 is queued: the watch is not reachable"),
      "\(sent.errors)")
    phone.interrupt()
    #expect(phone.finish().status == 0)
  }

  @Test(arguments: [
    ["pass", "x", "1", "--transiting", "session-file"], ["read", "x", "--transiting", "session-context"],
    ["clear", "x", "--transiting", "session-message"],
  ])
  func sessionTypesWithoutAPairSayWhatIsNeeded(arguments: [String]) throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let result = try run(arguments + ["--home", home.path])
    #expect(result.status == 2)
    #expect(result.errors.contains("--pair NAME --role phone|watch"), "\(result.errors)")
  }

  @Test func badRolesAndMissingPairsAreRefused() throws {
    let pairs = try PairHome()
    let role = try run(["device", "run", "--pair", "p", "--role", "tablet"] + pairs.home)
    #expect(role.status == 2 && role.errors.contains("phone or watch"), "\(role.errors)")
    let missing = try run(["device", "run", "--pair", "nope", "--role", "watch"] + pairs.home)
    #expect(missing.status == 3 && missing.errors.contains("no pair named nope"), "\(missing.errors)")
    let both = try run(
      ["device", "run", "--pair", "p", "--role", "watch", "--echo", "--reply", "1"] + pairs.home)
    #expect(both.status == 2, "\(both.errors)")
  }

  @Test func helpListsThePairVerbs() throws {
    let help = try run(["help"])
    for verb in ["pair", "device", "transfers"] {
      #expect(help.output.contains("\n  \(verb) "), "\(verb)")
    }
    let pass = try run(["pass", "--help"])
    #expect(pass.output.contains("--reply-timeout") && pass.output.contains("--pair"))
  }
}
