import Foundation
import Glibc
import Testing

/// `pair wait NAME --role ROLE | --reachable`: a script waits for a device to be up rather than
/// racing `device run … &` with a session message (7007) or polling `pair list`.
@Suite struct PairWaitVerbTests {
  typealias PairHome = PairVerbTests.PairHome

  func wait(_ pairs: PairHome, _ arguments: [String]) throws -> CommandResult {
    try run(["pair", "wait", "p"] + arguments + pairs.home)
  }

  @Test func aWaitEndsOnceADeviceStartedAfterItActivated() throws {
    let pairs = try PairHome()
    let waiting = try RunningCommand(
      ["pair", "wait", "p", "--role", "watch", "--timeout", "60"] + pairs.home)
    // The wait has looked once and found it not running: only then does the device start.
    #expect(
      waiting.waitFor("waiting up to 60 s for the watch of p: it is not running"), "\(waiting.currentErrors)")
    let watch = try pairs.device("watch")
    defer {
      watch.interrupt()
      _ = watch.finish()
    }
    let waited = waiting.finish()
    #expect(waited.status == 0, "\(waited.errors)")
    let pid = try #require(try pairs.pid(of: "watch"))
    #expect(waited.errors.contains("the watch of p is activated (pid \(pid))"), "\(waited.errors)")
    #expect(waited.output.isEmpty)
  }

  @Test func aWaitForADeviceAlreadyUpEndsAtOnceWithoutWaiting() throws {
    let pairs = try PairHome()
    let phone = try pairs.device("phone")
    defer {
      phone.interrupt()
      _ = phone.finish()
    }
    let waited = try wait(pairs, ["--role", "phone", "--timeout", "60"])
    #expect(waited.status == 0, "\(waited.errors)")
    #expect(!waited.errors.contains("waiting"), "\(waited.errors)")
    #expect(waited.errors.contains("the phone of p is activated"), "\(waited.errors)")
  }

  @Test func aWaitForADeviceNotRunningTimesOutWithExitOneSayingSo() throws {
    let pairs = try PairHome()
    let waited = try wait(pairs, ["--role", "watch", "--timeout", "0.2"])
    #expect(waited.status == 1, "\(waited.errors)")
    #expect(
      waited.errors.contains("timed out after 0.2 s: the watch of p is not running"), "\(waited.errors)")
    // With no timeout to wait out, one look.
    let once = try wait(pairs, ["--role", "watch", "--timeout", "0"])
    #expect(once.status == 1 && !once.errors.contains("waiting"), "\(once.errors)")
  }

  /// A device stopped with SIGSTOP is not up (a session message to it is 7007): the wait times
  /// out naming it stopped, and a wait that began while it was stopped ends once it is continued
  /// (which changes no file: the stopped state is read again every 0.25 s).
  @Test func aStoppedDeviceIsNotUpUntilItIsContinued() throws {
    let pairs = try PairHome()
    try pairs.whileStopped("watch") { pid in
      let timedOut = try wait(pairs, ["--role", "watch", "--timeout", "0.3"])
      #expect(timedOut.status == 1, "\(timedOut.errors)")
      #expect(
        timedOut.errors.contains("the watch of p is stopped (pid \(pid), SIGSTOP): kill -CONT \(pid)"),
        "\(timedOut.errors)")
      let waiting = try RunningCommand(
        ["pair", "wait", "p", "--role", "watch", "--timeout", "60"] + pairs.home)
      #expect(waiting.waitFor("it is stopped (pid \(pid)"), "\(waiting.currentErrors)")
      kill(pid, SIGCONT)
      let waited = waiting.finish()
      #expect(waited.status == 0, "\(waited.errors)")
      #expect(waited.errors.contains("the watch of p is activated (pid \(pid))"), "\(waited.errors)")
    }
  }

  @Test func reachableWaitsForBothDevices() throws {
    let pairs = try PairHome()
    let watch = try pairs.device("watch")
    defer {
      watch.interrupt()
      _ = watch.finish()
    }
    let alone = try wait(pairs, ["--reachable", "--timeout", "0.3"])
    #expect(alone.status == 1, "\(alone.errors)")
    #expect(
      alone.errors.contains("p is not reachable: the phone is not running, the watch is activated (pid"),
      "\(alone.errors)")
    let waiting = try RunningCommand(["pair", "wait", "p", "--reachable", "--timeout", "60"] + pairs.home)
    #expect(waiting.waitFor("waiting up to 60 s for p to be reachable"), "\(waiting.currentErrors)")
    let phone = try pairs.device("phone")
    defer {
      phone.interrupt()
      _ = phone.finish()
    }
    let waited = waiting.finish()
    #expect(waited.status == 0 && waited.errors.contains("p is reachable"), "\(waited.errors)")
  }

  @Test func aMissingPairExitsThree() throws {
    let pairs = try PairHome()
    let missing = try run(["pair", "wait", "q", "--role", "watch", "--timeout", "60"] + pairs.home)
    #expect(missing.status == 3, "\(missing.errors)")
    #expect(missing.errors.contains("there is no pair named q"), "\(missing.errors)")
  }

  @Test(arguments: [
    (["--role", "dog"], "--role is phone or watch, not dog"),
    ([], "pair wait needs --role phone|watch, or --reachable"),
    (["--role", "watch", "--reachable"], "--role ROLE or --reachable, not both"),
    (["--role", "watch", "--timeout", "soon"], "--timeout takes a number of seconds"),
  ])
  func aBadCommandLineExitsTwo(arguments: [String], message: String) throws {
    let pairs = try PairHome()
    let result = try wait(pairs, arguments)
    #expect(result.status == 2, "\(result.errors)")
    #expect(result.errors.contains(message), "\(result.errors)")
  }

  @Test func theWaitOptionsAreRefusedByTheOtherActions() throws {
    let pairs = try PairHome()
    let list = try run(["pair", "list", "--role", "watch"] + pairs.home)
    #expect(list.status == 2 && list.errors.contains("are for pair wait"), "\(list.errors)")
  }

  /// The README's block as written: `device run … &`, then `pair wait`, then at once a session
  /// message with a reply timeout: it is delivered and echoed, exit 0 (before `pair wait`, 1 run
  /// in 3 failed with 7007 as the watch had not activated yet).
  @Test func theReadmeBlockPassesASessionMessageRightAfterStartingTheWatch() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let result = try runShell(
      """
      export WORMHOLE_HOME="$1"
      "$0" pair create demo || exit 10
      "$0" device run --pair demo --role watch --echo &
      watch=$!
      "$0" pair wait demo --role watch
      waited=$?
      "$0" pass greet '"hi"' --transiting session-message --pair demo --role phone --reply-timeout 2
      passed=$?
      kill $watch
      wait $watch
      echo "waited=$waited passed=$passed"
      """, [home.path])
    #expect(result.lines.last == "waited=0 passed=0", "\(result.output)\n\(result.errors)")
    #expect(result.lines.contains(#""hi""#), "the echoed reply: \(result.output)")
    #expect(result.lines.contains(#"session-message #1 greet: "hi""#), "\(result.output)")
  }
}
