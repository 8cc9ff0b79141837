import ArchivedValues
import DashboardRuntime
import DevicePairing
import Foundation
import Glibc
import MailboxModel
import MailboxWatcher
import TestSupport
import Testing
import Wormhole
import WormholeVocabulary

@testable import Dashboard

private let payload = #"{"aps":{"alert":"hi","notification_id":"promo-7"}}"#

private func run(_ effect: DashboardEffect, _ pairs: any PairOperations = DevicePairOperations())
  -> EffectResult
{
  EffectJob(effect: effect, model: ModelState()).run(with: MailboxOperations(), pairs: pairs)
}

/// A `peer run --routes` under a temporary home, and the route form's effects sent to it by the
/// real pair operations, through its control socket: what the dashboard's `u` and `r` do.
@Suite(.serialized) struct RoutePeerSendTests {
  /// `lamp` running with routes under a new home; the snapshot the peers' branch has of it.
  private func runningLamp(_ home: TemporaryDirectory) throws -> (PeerProcess, PeerSnapshot) {
    home.write(
      "app.routes",
      """
      push       promo-.*         print
      deep-link  myapp://item/.*  decline
      """)
    let peer = try PeerProcess(
      name: "lamp", home: home.path, arguments: ["--routes", home.path + "/app.routes"])
    let snapshot = try #require(PeersSource.snapshots(home: home.path).first { $0.name == "lamp" })
    return (peer, snapshot)
  }

  @Test func aPushAndAReplayedDeepLinkAreRoutedByTheRunningPeerAndRecordedInItsJournal() throws {
    let home = TemporaryDirectory(prefix: "wormhole-routepeer")
    defer { home.remove() }
    let (peer, snapshot) = try runningLamp(home)
    defer { peer.stop() }
    // The form, opened on the peer's row, as `u` opens it.
    var form = RouteForm(
      text: payload, pairs: [], peers: [snapshot], selection: .peer(service: "chat", id: snapshot.id),
      directory: nil, directories: [])
    let effect = try #require(form.effect)
    let pushed = run(effect)
    #expect(pushed.failure == nil, "\(pushed)")
    #expect(pushed.detail == #"route catcher 0 "promo-.*" ("# + home.path + "/app.routes:1)", "\(pushed)")

    // A replay of a deep link that went to the peer, as `r` opens it: to the same peer.
    form = RouteForm(
      kind: .deepLink, text: "myapp://item/42", replayOf: 9, pairs: [], peers: [snapshot], selection: nil,
      directory: FileName(snapshot.folder), directories: [], device: "peer:" + snapshot.label)
    #expect(form.target?.peer?.id == snapshot.id)
    let replay = try #require(form.effect)
    #expect(replay.verb == "replay")
    let replayed = run(replay)
    #expect(replayed.failure == nil, "\(replayed)")
    #expect(replayed.detail?.hasPrefix("route unhandled, declined by catcher 0") == true, "\(replayed)")

    // The peer recorded both in its journal, named as its records name it.
    let wormhole = try Wormhole(directory: snapshot.folder)
    let records = try wormhole.trafficRecords().filter { $0.kind == .push || $0.kind == .deepLink }
    #expect(records.map(\.kind) == [.push, .deepLink])
    #expect(records.allSatisfy { $0.device == "peer:" + snapshot.label }, "\(records.map(\.device))")
    #expect(records.first?.payload == payload)
  }

  /// A peer that ended after the peers were read: the dashboard says so at once, and sends
  /// nothing.
  @Test func aPeerThatEndedMeanwhileIsAClearErrorNotAHang() throws {
    let home = TemporaryDirectory(prefix: "wormhole-routepeer")
    defer { home.remove() }
    let (peer, snapshot) = try runningLamp(home)
    let target = RouteTarget.Peer(snapshot, among: [snapshot])
    peer.stop()
    let started = ContinuousClock.now
    let result = run(.route(RouteSend(to: .peer(target), delivery: .push(payload))))
    #expect(ContinuousClock.now - started < .seconds(5))
    #expect(
      result.failure?.hasPrefix("peer:lamp is not running any more (it ended since the peers were read)")
        == true, "\(result)")
    #expect(result.failure?.hasSuffix("nothing was sent") == true)
  }

  /// A peer that runs but does not answer (stopped): the wait is bounded, and says so.
  @Test func aStoppedPeerGivesNoAnswerWithinTheBoundAndTheOperatorIsTold() throws {
    let home = TemporaryDirectory(prefix: "wormhole-routepeer")
    defer { home.remove() }
    let (peer, snapshot) = try runningLamp(home)
    defer { peer.stop() }
    peer.signal(SIGSTOP)
    defer { peer.signal(SIGCONT) }
    let target = RouteTarget.Peer(snapshot, among: [snapshot])
    let started = ContinuousClock.now
    let result = run(
      .route(RouteSend(to: .peer(target), delivery: .deepLink("myapp://item/1"))),
      DevicePairOperations(peerAnswerSeconds: 1))
    #expect(ContinuousClock.now - started < .seconds(10))
    #expect(
      result.failure
        == "peer:lamp#\(snapshot.label.suffix(4)) gave no answer on its control socket within 1 s "
        + "(stopped, or busy); it may still route it when it goes on", "\(result)")
  }

  /// A socket path that is not a peer's of that service and id is refused before anything is
  /// sent.
  @Test func aTargetThatIsNotAPeersSocketIsRefused() {
    let target = RouteTarget.Peer(
      service: "chat", id: 0x1a2b, label: "lamp#1a2b", selector: "lamp",
      controlSocketPath: "/tmp/elsewhere.sock")
    let result = run(.route(RouteSend(to: .peer(target), delivery: .push(payload))))
    #expect(result.failure?.hasPrefix("peer:lamp has no control socket of a peer") == true, "\(result)")
  }
}
