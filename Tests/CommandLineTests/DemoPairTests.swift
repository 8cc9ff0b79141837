import Foundation
import Glibc
import TestSupport
import Testing

/// The demo's pair: its phone and watch run for the demo's length, the watch goes away and comes
/// back (the schedule: away from 2.5 s to 5 s), and every way the demo ends leaves no process and
/// no file behind. Its processes are found by their command lines, which name the demo's home
/// below the test's temporary directory.
@Suite(.serialized, .hangLimit) struct DemoPairTests {
  /// `demo --no-ui --seconds 8` with its standard error in the same stream as its traffic (so the
  /// order of "the watch stops", the entries and "the watch is back" is the order they happened),
  /// in a temporary directory of its own.
  static func headless(seconds: Int = 8, in temporary: TemporaryDirectory) throws -> CommandResult {
    let command = try RunningCommand(
      ["-c", "exec \"$0\" demo --no-ui --seconds \(seconds) 2>&1", executablePath],
      environment: ["TMPDIR": temporary.path], executable: "/bin/sh")
    command.closeInput()
    return command.finish()
  }

  /// The lines of `result` split where the watch stops and where it returns.
  static func phases(_ result: CommandResult) throws -> (before: [String], away: [String], back: [String]) {
    let lines = result.lines
    let stop = try #require(lines.firstIndex { $0.contains("the watch stops") }, "\(result.output)")
    let back = try #require(lines.firstIndex { $0.contains("the watch is back") }, "\(result.output)")
    #expect(stop < back)
    return (Array(lines[..<stop]), Array(lines[(stop + 1)..<back]), Array(lines[(back + 1)...]))
  }

  static let watchContainer = "/pairs/demo/watch/AppGroup/group.com.example.demo "
  static let phoneContainer = "/pairs/demo/phone/AppGroup/group.com.example.demo "

  @Test func thePairRunsHeadlessTheWatchLeavesAndReturnsAndNothingIsLeft() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let result = try Self.headless(in: temporary)
    #expect(result.status == 0, "\(result.output)")
    // The app and the extension, as before.
    for expected in ["transiting=file", "transiting=coordinated-file", " changed-without-record "] {
      #expect(result.output.contains(expected), "\(expected) in \(result.output)")
    }
    let (_, _, back) = try Self.phases(result)
    // The watch stores the phone's transfers in its own container, and the phone the watch's.
    #expect(result.lines.contains { $0.contains(Self.phoneContainer) && $0.contains(" workoutSummary ") })
    // A watch that returned is a new process: what it stores after "back" it stored since.
    #expect(back.contains { $0.contains(Self.watchContainer) && $0.contains(" artwork ") }, "\(back)")
    #expect(Self.processes(mentioning: temporary.path).isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
  }

  /// The devices journal their session events, so each transiting type is traffic: sends while
  /// the watch is away fail with 7007, a reply that never comes with 7012, and what queued
  /// meanwhile is delivered when it returns.
  @Test func everyTransitingTypeAndTheWatchsAbsenceAreTraffic() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let result = try Self.headless(in: temporary)
    #expect(result.status == 0, "\(result.output)")
    for type in ["file", "coordinated-file", "session-message", "session-context", "session-file"] {
      #expect(result.output.contains("transiting=\(type)\n"), "\(type) in \(result.output)")
    }
    let (_, away, back) = try Self.phases(result)
    // The phone's messages fail while the watch is away.
    #expect(away.contains { $0.contains("transiting=session-message") && $0.contains("7007") }, "\(away)")
    // The message the watch never answers times out.
    #expect(result.lines.contains { $0.contains("transiting=session-message") && $0.contains("7012") })
    func phone(_ line: String, _ type: String, _ delivery: String) -> Bool {
      line.contains(Self.phoneContainer) && line.contains(" demo/phone -> demo/watch \(delivery) ")
        && line.hasSuffix("transiting=\(type)")
    }
    func watch(_ line: String, _ type: String, _ identifier: String? = nil) -> Bool {
      line.contains(Self.watchContainer) && line.contains(" demo/watch <- demo/phone delivered ")
        && line.hasSuffix("transiting=\(type)") && identifier.map { line.contains(" \($0) ") } != false
    }
    // Once a send has failed, none reaches the watch until it returns.
    let failing = away.drop { !($0.hasSuffix("transiting=session-message") && $0.contains("7007")) }
    #expect(!failing.isEmpty && !failing.contains { phone($0, "session-message", "delivered") }, "\(away)")
    // What the returned watch is handed before the phone's first new message (a step sends its
    // message first): every transfer queued meanwhile, and of the contexts queued meanwhile the
    // newest only, once.
    let handed = back.prefix { !watch($0, "session-message") }
    let queued = away.filter { phone($0, "session-file", "queued") }.count
    #expect(queued > 0, "\(away)")
    #expect(handed.filter { watch($0, "session-file") }.count >= queued, "\(back)")
    #expect(away.filter { phone($0, "session-context", "queued") }.count > 1, "\(away)")
    #expect(handed.filter { watch($0, "session-context", "nowPlaying") }.count == 1, "\(back)")
    #expect(Self.processes(mentioning: temporary.path).isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
  }

  /// SIGTERM or SIGINT in the middle of a run: the demo ends cleanly (exit 0), its processes
  /// (the app, the extension, the phone and the watch) with it, and its home is removed.
  @Test(arguments: [SIGTERM, SIGINT])
  func stoppedMidRunTheDemoLeavesNothingBehind(signal number: Int32) throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let command = try RunningCommand(["demo", "--no-ui"], environment: ["TMPDIR": temporary.path])
    // A transfer stored by the watch: both devices run, and so do the app and the extension.
    #expect(command.waitFor(Self.watchContainer, inErrors: false))
    let children = Self.processes(mentioning: temporary.path)
    // The app, the extension, the phone, the reaper and (unless it is away) the watch.
    #expect(children.count >= 4, "\(children)")
    let demo = try #require(children.first.flatMap(Self.parent(of:)))
    #expect(kill(demo, number) == 0)
    let result = command.finish()
    #expect(result.reason == .exit && result.status == 0, "\(result.status) \(result.errors)")
    #expect(Self.processes(mentioning: temporary.path).isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
  }

  /// A demo killed with SIGKILL cannot clean up: its processes end with it, and the last of
  /// them, the reaper, removes the home.
  @Test func killedTheDemoTakesItsProcessesAndItsHomeWithIt() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let command = try RunningCommand(["demo", "--no-ui"], environment: ["TMPDIR": temporary.path])
    #expect(command.waitFor(Self.watchContainer, inErrors: false))
    let children = Self.processes(mentioning: temporary.path)
    // The app, the extension, the phone, the reaper and (unless it is away) the watch.
    #expect(children.count >= 4, "\(children)")
    let demo = try #require(children.first.flatMap(Self.parent(of:)))
    let watches = children.compactMap(Self.exitWatch(of:))
    #expect(watches.count == children.count)
    #expect(kill(demo, SIGKILL) == 0)
    _ = command.finish()
    for descriptor in watches {
      var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      #expect(poll(&ready, 1, 10_000) == 1, "a demo process outlived the demo")
      close(descriptor)
    }
    #expect(Self.processes(mentioning: temporary.path).isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
  }

  /// `--keep` keeps the home, with the pair and what its devices stored, and no process.
  @Test func aKeptHomeHoldsThePairAndNoProcessRemains() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let result = try run(
      ["demo", "--no-ui", "--seconds", "1.5", "--keep"], environment: ["TMPDIR": temporary.path])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errors.contains("the demo home is kept at"))
    let homes = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
    let home = try #require(homes.first, "no home kept")
    #expect(homes.count == 1)
    let pair = temporary.path + "/" + home + "/pairs/demo"
    #expect(FileManager.default.fileExists(atPath: pair + "/pair.json"))
    #expect(
      FileManager.default.fileExists(atPath: pair + "/watch/AppGroup/group.com.example.demo/artwork.archive"))
    #expect(Self.processes(mentioning: temporary.path).isEmpty)
  }

  /// The dashboard's demo shows the demo's pair in its pairs' branch, both devices running, the
  /// watch not running while it is away and running again when it returns (the pairs once came from the default home, not the
  /// demo's: `WORMHOLE_HOME` here is an empty directory).
  @Test func theDashboardDemoShowsThePair() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let otherHome = TemporaryDirectory()
    defer { otherHome.remove() }
    let pane = try TmuxPane(width: 120, height: 32) { _ in
      "env TERM=xterm-256color LANG=C.UTF-8 TMPDIR=\(temporary.path) WORMHOLE_HOME=\(otherHome.path) "
        + "\(executablePath) demo"
    }
    pane.waitFor("▾ pairs")
    pane.waitFor("demo  phone ● watch ●  reachable")
    // The watch goes away at 2.5 s: the row says so within the store's poll.
    pane.waitFor("demo  phone ● watch ○  unreachable")
    // And returns at 5 s, a new process.
    pane.waitFor("demo  phone ● watch ●  reachable")
    pane.send("q")
    #expect(pane.waitUntil { pane.isDead })
    #expect(Self.processes(mentioning: temporary.path).isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
  }

  // MARK: Processes

  /// The processes whose command line names something below `path` (the demo's players all take
  /// `--home <the demo's home>`).
  static func processes(mentioning path: String) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> pid_t? in
      guard let pid = pid_t(entry), pid != getpid(),
        let bytes = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
      else { return nil }
      let arguments = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      return arguments.contains { $0.hasPrefix(path + "/") } ? pid : nil
    }.sorted()
  }

  /// The parent of `pid`, from `/proc/PID/stat` (the field after the state, past the name).
  static func parent(of pid: pid_t) -> pid_t? {
    guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
      let close = bytes.lastIndex(of: UInt8(ascii: ")"))
    else { return nil }
    let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
    guard fields.count > 1 else { return nil }
    return pid_t(String(decoding: fields[1], as: UTF8.self))
  }

  /// A pidfd of `pid`: readable once the process ends.
  static func exitWatch(of pid: pid_t) -> Int32? {
    typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
    guard let program = dlopen(nil, RTLD_NOW) else { return nil }
    defer { dlclose(program) }
    guard let symbol = dlsym(program, "pidfd_open") else { return nil }
    let descriptor = unsafeBitCast(symbol, to: PidfdOpen.self)(pid, 0)
    return descriptor >= 0 ? descriptor : nil
  }
}
