import Foundation
import Glibc
import TestSupport
import Testing

/// The pairs' branch of the real dashboard in a real terminal (tmux, a server of its own), with
/// both devices as `device run` processes: both show activated and reachable, and a watch killed
/// with SIGKILL shows as not running, the pair unreachable, within a second.
@Suite(.serialized, .hangLimit) struct PairsDashboardEndToEndTests {
  @Test func aKilledWatchShowsNotRunningAndThePairUnreachableWithinASecond() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let options = ["--home", home.path]
    let created = try run(["pair", "create", "desk"] + options)
    try #require(created.status == 0, "\(created.errors)")
    let phone = try RunningCommand(["device", "run", "--pair", "desk", "--role", "phone"] + options)
    let watch = try RunningCommand(["device", "run", "--pair", "desk", "--role", "watch"] + options)
    defer {
      phone.interrupt()
      _ = phone.finish()
    }
    try #require(phone.waitFor("activated") && watch.waitFor("activated"), "\(phone.currentErrors)")
    try #require(phone.waitFor("the watch is reachable"), "\(phone.currentErrors)")

    // pair list says so too: each device activated, the pair reachable.
    let list = try run(["pair", "list", "--json"] + options)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data((list.lines.first ?? "").utf8)) as? [String: Any])
    let listedWatch = try #require(object["watch"] as? [String: Any])
    #expect((object["phone"] as? [String: Any])?["activationState"] as? String == "activated")
    #expect(listedWatch["activationState"] as? String == "activated")
    #expect(object["reachable"] as? Bool == true)
    let watchPID = try #require((listedWatch["pid"] as? NSNumber)?.int32Value)
    let text = try run(["pair", "list"] + options)
    #expect(
      text.lines.first?.contains("watch running (pid \(watchPID)), activated, 0 queued") == true,
      "\(text.output)")

    let pane = try TmuxPane(width: 120, height: 40) { _ in
      "env TERM=xterm-256color LANG=C.UTF-8 \(executablePath) --home \(home.path)"
    }
    pane.waitFor("desk  phone ● watch ●  reachable")
    pane.waitFor("watch activated")
    pane.waitFor("phone activated")

    let killed = ContinuousClock.now
    #expect(kill(watchPID, SIGKILL) == 0)
    let shown = pane.waitUntil {
      let screen = pane.screen()
      return screen.contains("desk  phone ● watch ○  unreachable") && screen.contains("watch not running")
    }
    let elapsed = ContinuousClock.now - killed
    #expect(shown, "the branch never showed the watch gone:\n\(pane.screen())")
    #expect(elapsed < .seconds(1), "the branch took \(elapsed) to show the killed watch")
    let ended = watch.finish()
    #expect(ended.reason == .uncaughtSignal && ended.status == SIGKILL)

    pane.send("q")
    #expect(pane.waitUntil { pane.isDead })
  }
}
