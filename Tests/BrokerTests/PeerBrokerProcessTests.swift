import DashboardRuntime
import DevicePairing
import Foundation
import Glibc
import PeerSession
import TestSupport
import Testing

/// `peer run --broker` in child processes, each under a home of its own: a peer killed with
/// SIGKILL (its Last Will) or stopped with SIGSTOP (its heartbeat) is lost, and the `peer` verbs
/// drive a broker peer through its control socket on its own machine, with `--to` a peer it
/// found through the broker.
@Suite(.enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"))
struct PeerBrokerProcessTests {
  /// `peer run --broker URL --home HOME ...` in a child, once it says it runs.
  static func run(
    _ name: String, home: BrokerHome, broker: TestBroker, _ extra: [String],
    environment: [String: String] = [:]
  ) throws -> WormholeChild {
    let child = try WormholeChild(
      ["peer", "run", "--service", "chat", "--name", name, "--broker", broker.url, "--home", home.path]
        + extra,
      environment: environment)
    guard child.waitForError(containing: "is running", seconds: 20) else {
      child.stop()
      throw BrokerTestError("peer run \(name) did not start: \(child.errorText)")
    }
    return child
  }

  @Test func anAdvertiserKilledWithSIGKILLIsLostWithinTwoSeconds() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let (first, second) = (BrokerHome(), BrokerHome())
    defer { [first, second].forEach { $0.remove() } }
    let desk = try Self.run("desk", home: first, broker: broker, ["--advertise"])
    defer { desk.stop() }
    let browser = try BrokerPeer("browser", home: second.path, broker: broker, browse: true)
    defer { browser.stop() }
    let found = try #require(browser.find(named: "desk", seconds: 20))
    let killed = ContinuousClock.now
    desk.stop(SIGKILL)
    #expect(browser.lose(found, seconds: 2))
    #expect(ContinuousClock.now - killed < .seconds(2))
    // Its Will removed the retained presence: a browser that starts now finds nothing of it.
    let late = try BrokerPeer("late", home: second.path, broker: broker, browse: true)
    defer { late.stop() }
    let live = try BrokerPeer("live", home: second.path, broker: broker, advertise: true)
    defer { live.stop() }
    #expect(late.find(live.identity))
    #expect(!late.events.values.contains(.found(found, info: DiscoveryInfo())))
  }

  /// Stopped, the peer sends nothing, neither heartbeats nor pings: the browser (the same
  /// keep-alive, 5 s, so a heartbeat of 1.25 s) loses it within the keep-alive, before the
  /// broker's Will; continued, it is heard and found again.
  @Test func anAdvertiserStoppedWithSIGSTOPIsLostWithinTheKeepAliveAndFoundAgain() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let (first, second) = (BrokerHome(), BrokerHome())
    defer { [first, second].forEach { $0.remove() } }
    let desk = try Self.run(
      "desk", home: first, broker: broker, ["--advertise"], environment: ["WORMHOLE_MQTT_KEEPALIVE": "5"])
    defer { desk.stop() }
    let browser = try BrokerPeer("browser", home: second.path, broker: broker, browse: true, keepAlive: 5)
    defer { browser.stop() }
    let found = try #require(browser.find(named: "desk", seconds: 20))
    let stopped = ContinuousClock.now
    _ = kill(desk.process.processIdentifier, SIGSTOP)
    #expect(browser.lose(found, seconds: 5))
    #expect(ContinuousClock.now - stopped < .seconds(5))
    _ = kill(desk.process.processIdentifier, SIGCONT)
    let again = browser.events.wait(seconds: 20) { events in
      events.filter { $0 == .found(found, info: DiscoveryInfo()) }.count >= 2
    }
    #expect(again.filter { $0 == .found(found, info: DiscoveryInfo()) }.count == 2)
  }

  /// `peer list` and the dashboard show a broker peer that advertises as advertising, with its
  /// info (its `ID.broker` file), and one that does not as not; the local link's browsers of the
  /// same home never find it (it writes no `ID.advert`), and its files go when it stops.
  @Test func peerListAndTheDashboardShowABrokerPeerAsAdvertising() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let home = BrokerHome()
    defer { home.remove() }
    let desk = try Self.run("desk", home: home, broker: broker, ["--advertise", "--info", "room=lab"])
    defer { desk.stop() }
    let idle = try Self.run("idle", home: home, broker: broker, ["--browse"])
    defer { idle.stop() }
    let list = try WormholeChild.run(["peer", "list", "--home", home.path, "--json"])
    #expect(list.status == 0, "\(list.errors)")
    let lines = list.output.split(separator: "\n").map(String.init)
    #expect(lines.count == 2)
    #expect(lines.contains { $0.contains("\"name\":\"desk\"") && $0.contains("\"advertising\":true") })
    #expect(lines.contains { $0.contains("\"name\":\"idle\"") && $0.contains("\"advertising\":false") })
    let snapshots = PeersSource.snapshots(home: home.path)
    let shown = try #require(snapshots.first { $0.name == "desk" })
    #expect(shown.isAdvertising && shown.info == ["room": "lab"])
    #expect(snapshots.first { $0.name == "idle" }?.isAdvertising == false)
    // A local-link browser of the same home finds a local advertiser, never the broker peer.
    let service = try ServiceType("chat")
    let local = try LocalPeer(name: try PeerName("local"), service: service, home: home.path)
    let browser = try LocalPeer(name: try PeerName("browser"), service: service, home: home.path)
    let found = Collector<PeerEvent>()
    browser.setEventHandler { found.append($0) }
    try local.start(advertising: DiscoveryInfo(), policy: .never, browsing: false)
    defer { local.stop() }
    try browser.start(advertising: nil, policy: .never, browsing: true)
    defer { browser.stop() }
    let localFound = PeerEvent.found(local.identity, info: DiscoveryInfo())
    #expect(found.wait { $0.contains(localFound) }.contains(localFound))
    #expect(
      !found.values.contains { if case .found(let peer, _) = $0 { peer.name.text == "desk" } else { false } })
    let path = try #require(RunningPeer.all(home: home.path).first { $0.identity.name.text == "desk" })
      .directory.brokerAdvertisementPath(shown.id)
    #expect(access(path, F_OK) == 0)
    desk.stop(SIGINT)  // a clean stop
    #expect(access(path, F_OK) != 0)
  }

  /// Two machines' peers, each driven by the verbs on its own machine: `--to` names the peer
  /// found through the broker. Data arrives; a resource shows progress on the receiver, whose
  /// sender is then killed: the receiver sees it fail.
  @Test func theVerbsDriveBrokerPeersAndAResourceFailsWhenItsSenderIsKilled() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let (first, second) = (BrokerHome(), BrokerHome())
    defer { [first, second].forEach { $0.remove() } }
    let watch = try Self.run("watch", home: second, broker: broker, ["--advertise", "--accept", "always"])
    defer { watch.stop() }
    let desk = try Self.run("desk", home: first, broker: broker, ["--browse"])
    defer { desk.stop() }
    #expect(
      desk.output.wait(seconds: 20) { String(decoding: $0, as: UTF8.self).contains("found watch#") }.count > 0
    )
    let invited = try WormholeChild.run([
      "peer", "invite", "--home", first.path, "--from", "desk", "--to", "watch",
    ])
    #expect(invited.status == 0, "\(invited.errors)")
    #expect(invited.output.contains("watch#") && invited.output.contains("connected"))
    // The other machine's peers are not this machine's: --from must run here.
    let elsewhere = try WormholeChild.run([
      "peer", "send", "--home", first.path, "--from", "watch", "--to", "desk", "--mode", "reliable", "{}",
    ])
    #expect(elsewhere.status == 3 && elsewhere.errors.contains("no running peer"))
    let sent = try WormholeChild.run(
      [
        "peer", "send", "--home", first.path, "--from", "desk", "--to", "watch", "--mode", "reliable",
        "{\"x\":1}",
      ])
    #expect(sent.status == 0, "\(sent.errors)")
    #expect(
      watch.output.wait(seconds: 10) {
        String(decoding: $0, as: UTF8.self).contains("reliable 7 bytes: {\"x\":1}")
      }
      .count > 0)
    let list = try WormholeChild.run(["peer", "list", "--home", first.path])
    #expect(list.status == 0 && list.output.contains("desk#") && list.output.contains("connected: watch#"))

    let path = first.path + "/big.bin"
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    #expect(descriptor >= 0 && ftruncate(descriptor, off_t(200 << 20)) == 0)
    _ = close(descriptor)
    let sending = try WormholeChild([
      "peer", "send-resource", "--home", first.path, "--from", "desk", "--to", "watch", path,
    ])
    defer { sending.stop() }
    let text = { String(decoding: watch.output.values, as: UTF8.self) }
    _ = watch.output.wait(seconds: 20) { String(decoding: $0, as: UTF8.self).contains(" progress ") }
    #expect(text().contains("big.bin from desk#"))
    desk.stop(SIGKILL)
    _ = watch.output.wait(seconds: 10) { String(decoding: $0, as: UTF8.self).contains("went away") }
    #expect(
      text().contains("big.bin from desk#") && text().contains(" failed ") && text().contains("went away"))
    #expect(text().contains("state desk#") && text().contains("notConnected"))
  }
}
