import MailboxModel
import SnapshotSupport
import TerminalInput
import Testing
import WormholeVocabulary

@testable import Dashboard

private let snapshots = snapshotDirectory()

private let promoPayload = #"{"aps":{"alert":"50% off","notification_id":"promo-7"}}"#

private func pairs() -> [PairSnapshot] {
  [
    PairSnapshot(
      name: "desk", home: "/w", phone: .init(role: .phone, runningPID: 4242), watch: .init(role: .watch))
  ]
}

private func socket(_ id: UInt64, service: String = "chat") -> String {
  "/w/peers/\(service)/\(String(repeating: "0", count: 12))\(String(id, radix: 16)).control.sock"
}

private func folder(_ id: UInt64, service: String = "chat") -> String {
  "/w/peers/\(service)/\(String(repeating: "0", count: 12))\(String(id, radix: 16))"
}

/// Running peers: `lamp` alone of its name, two `desk`s (of two services), and one whose name
/// has an escape sequence in it.
private func peers() -> [PeerSnapshot] {
  [
    PeerSnapshot(
      service: "chat", name: "lamp", id: 0x1a2b, pid: 21, controlSocketPath: socket(0x1a2b),
      folder: folder(0x1a2b)),
    PeerSnapshot(
      service: "chat", name: "desk", id: 0xd001, pid: 22, controlSocketPath: socket(0xd001),
      folder: folder(0xd001)),
    PeerSnapshot(
      service: "game", name: "desk", id: 0xd002, pid: 23, controlSocketPath: socket(0xd002, service: "game"),
      folder: folder(0xd002, service: "game")),
    PeerSnapshot(
      service: "chat", name: "evil\u{1B}[2J\u{202E}", id: 0xe711, pid: 24, controlSocketPath: socket(0xe711),
      folder: folder(0xe711)),
  ]
}

private func peerHarness(width: Int = 120, height: Int = 40, readOnly: Bool = false) -> DashboardHarness {
  var harness = DashboardHarness(width: width, height: height, readOnly: readOnly)
  harness.send(.pairs(pairs()))
  harness.send(.peers(peers()))
  harness.effects = []
  return harness
}

private func routeForm(_ harness: DashboardHarness) -> RouteForm? {
  guard case .route(let form)? = harness.state.overlay else { return nil }
  return form
}

private func peerTarget(_ selector: String, _ id: UInt64, _ label: String, service: String = "chat")
  -> RouteTarget
{
  .peer(
    RouteTarget.Peer(
      service: service, id: id, label: label, selector: selector,
      controlSocketPath: socket(id, service: service)))
}

@Suite struct RoutePeerFormTests {
  /// After the pairs, ←/→ offers every running peer, by the selector the verbs accept: its name
  /// alone, `NAME#xxxx` when two share it, `#xxxx` when it does not show as it is.
  @Test func theDeviceFieldOffersRunningPeersAfterThePairs() throws {
    var harness = peerHarness()
    harness.type("u")
    var form = try #require(routeForm(harness))
    #expect(form.target == .device(home: "/w", pair: "desk", role: .phone))
    #expect(form.fields == [.kind, .pair, .role, .text])
    harness.type("<S-Tab><S-Tab>")
    #expect(routeForm(harness)?.focus == .pair)
    var offered: [String] = []
    for _ in 0..<4 {
      harness.type("<Right>")
      form = try #require(routeForm(harness))
      offered.append(form.target?.shown ?? "-")
      #expect(form.fields == [.kind, .pair, .text], "a peer has no role")
      #expect(form.deviceLabel == "peer")
    }
    #expect(offered == ["peer:desk#d001", "peer:#e711", "peer:lamp", "peer:desk#d002"])
    #expect(!harness.lines.joined().contains("\u{1B}"), "no name reaches the screen raw")
    harness.type("<Right>")
    #expect(
      routeForm(harness)?.target == .device(home: "/w", pair: "desk", role: .phone), "round to the pair")
    harness.type("<Left>")
    #expect(routeForm(harness)?.target == peerTarget("desk#d002", 0xd002, "desk#d002", service: "game"))
    // A first letter goes to the next device whose name starts with it.
    harness.type("l")
    #expect(routeForm(harness)?.target == peerTarget("lamp", 0x1a2b, "lamp#1a2b"))
    harness.type("<Tab>")
    harness.send(.paste(promoPayload))
    harness.type("<Enter>")
    #expect(
      harness.effects == [
        .route(RouteSend(to: peerTarget("lamp", 0x1a2b, "lamp#1a2b"), delivery: .push(promoPayload)))
      ])
    harness.send(
      .effectFinished(
        .done(harness.effects[0], detail: #"route catcher 0 "promo-.*" (app.routes:1)"#)))
    #expect(harness.state.status?.text == #"pushed to peer:lamp: route catcher 0 "promo-.*" (app.routes:1)"#)
  }

  @Test func aSelectedPeerRowOpensTheFormOnThatPeer() throws {
    var harness = peerHarness()
    harness.type("G")
    let selected = try #require(harness.state.selectedPeer)
    harness.type("u")
    let form = try #require(routeForm(harness))
    #expect(form.target?.peer?.id == selected.id, "\(String(describing: form.target))")
  }

  @Test func withOnlyPeersTheFormStartsOnTheFirstAndSaysHowToMakeEither() throws {
    var harness = DashboardHarness(width: 100, height: 30)
    harness.send(.peers(peers()))
    harness.type("u")
    #expect(routeForm(harness)?.target == peerTarget("desk#d001", 0xd001, "desk#d001"))
    let empty = RouteForm(pairs: [], selection: nil, directory: nil, directories: [])
    #expect(empty.target == nil)
    #expect(empty.problem?.contains("wormhole-tui peer run") == true, "\(empty.problem ?? "")")
  }

  @Test func readOnlyRefusesAPushToAPeer() throws {
    var harness = peerHarness(readOnly: false)
    harness.type("u<S-Tab><S-Tab><Right><Tab>")
    harness.send(.paste(promoPayload))
    harness.state.isReadOnly = true
    harness.type("<Enter>")
    #expect(!harness.effects.contains { $0.writes }, "\(harness.effects)")
    #expect(
      harness.state.status?.text.hasPrefix("read-only: push to peer:desk#d001 refused") == true,
      "\(harness.state.status?.text ?? "")")
  }

  @Test(arguments: [(120, 40), (80, 24)])
  func theFormOnAPeerSnapshot(width: Int, height: Int) throws {
    var harness = peerHarness(width: width, height: height)
    harness.type("u<S-Tab><S-Tab>l<Tab>")
    harness.send(.paste(promoPayload))
    expectSnapshot(harness.screen, named: "route-form-peer-\(width)x\(height)", in: snapshots)
  }
}

/// A push to a peer, as the peer's journal records it: `device` `peer:NAME#xxxx`, in its folder.
private func peerPush(_ sequence: UInt64, device: String, at milliseconds: Int64) -> TrafficRecord {
  TrafficRecord(
    sequence: sequence, milliseconds: milliseconds, processIdentifier: 21, sender: "wormhole-tui peer",
    transiting: "file", kind: .push, identifier: "", bytes: promoPayload.utf8.count, outcome: .ok,
    error: nil,
    details: TrafficDetails(device: device, route: #"{"taken":"unhandled"}"#, payload: promoPayload))
}

@Suite struct RoutePeerReplayTests {
  private func harness(device: String) -> DashboardHarness {
    var harness = peerHarness(width: 100, height: 30)
    let directory = FileName(folder(0x1a2b))
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(directory),
          .directoryScanned(directory, mailboxes: [:], initial: true),
          .journalRecords(
            directory: directory, [peerPush(1, device: device, at: harness.now)], initial: false),
        ], at: harness.now + 10))
    harness.effects = []
    return harness
  }

  @Test func replayGoesToThePeerTheEntryWentToOrAnotherDevice() throws {
    var harness = harness(device: "peer:lamp#1a2b")
    harness.type("<Tab><Tab>ggr")
    let form = try #require(routeForm(harness))
    let id = try #require(form.replayOf)
    #expect(form.target == peerTarget("lamp", 0x1a2b, "lamp#1a2b"), "\(String(describing: form.target))")
    #expect(form.note == nil)
    harness.type("<Enter>")
    #expect(
      harness.effects == [
        .route(
          RouteSend(to: peerTarget("lamp", 0x1a2b, "lamp#1a2b"), delivery: .push(promoPayload), replayOf: id))
      ])
    #expect(harness.effects.first?.verb == "replay")
    // Again, to desk's watch this time.
    harness.effects = []
    harness.type("r<S-Tab><Right><Right><Tab><Right><Enter>")
    #expect(
      harness.effects == [
        .route(RouteSend(home: "/w", pair: "desk", role: .watch, delivery: .push(promoPayload), replayOf: id))
      ], "\(harness.effects)")
  }

  @Test func aPeerThatNoLongerRunsIsSaidAndAnotherDeviceOffered() throws {
    var harness = harness(device: "peer:gone\u{1B}#0bad")
    harness.type("<Tab><Tab>ggr")
    let form = try #require(routeForm(harness))
    #expect(form.target == .device(home: "/w", pair: "desk", role: .phone))
    #expect(
      harness.shows(
        #"the entry went to "peer:gone\u{1b}#0bad", which no longer runs: choose another device"#),
      "\(harness)")
  }
}

/// A peer's pushes in the traffic pane: the devices column keeps the peer's `#xxxx`, which
/// tells two peers of one name apart, when the name does not fit.
@Suite struct RoutePeerTrafficTests {
  @Test func aPeersDeviceKeepsItsIdWhenCut() {
    var harness = peerHarness(width: 120, height: 30)
    let directory = FileName(folder(0x1a2b))
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(directory),
          .directoryScanned(directory, mailboxes: [:], initial: true),
          .journalRecords(
            directory: directory,
            [
              peerPush(1, device: "peer:lamp#1a2b", at: harness.now),
              peerPush(2, device: "peer:a-rather-long-peer-name#d001", at: harness.now + 1),
              peerPush(3, device: "peer:evil\u{1B}[2J#e711", at: harness.now + 2),
            ], initial: false),
        ], at: harness.now + 10))
    #expect(harness.shows(" lamp#1a2b "), "\(harness)")
    #expect(harness.shows(" a-…me#d001 "), "\(harness)")
    #expect(harness.shows(##" "e…J"#e711 "##), "\(harness)")
    #expect(!harness.lines.joined().contains("\u{1B}"))
    expectSnapshot(harness.screen, named: "route-traffic-peer-120x30", in: snapshots)
  }
}
