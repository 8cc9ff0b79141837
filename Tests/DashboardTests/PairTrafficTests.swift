import Dashboard
import MailboxModel
import SnapshotSupport
import Testing
import WormholeVocabulary

private let snapshots = snapshotDirectory()

/// The group directories of the pair `desk`'s two devices under the harness's home.
private let phoneGroup: FileName = "/w/pairs/desk/phone/AppGroup/group.example"
private let watchGroup: FileName = "/w/pairs/desk/watch/AppGroup/group.example"
/// A directory of another pair whose name starts with `desk`: none of its traffic is desk's.
private let otherGroup: FileName = "/w/pairs/desktop/phone/AppGroup/group.example"

/// `desk`: the phone activated with contexts and a queued transfer, the watch running but not
/// activated yet.
private func desk(now: Int64) -> PairSnapshot {
  PairSnapshot(
    name: "desk", home: "/w/",
    phone: PairSnapshot.Device(
      role: .phone, runningPID: 4242,
      applicationContext: [.init(identifier: "score", size: 120), .init(identifier: "theme", size: 64)],
      receivedContext: [.init(identifier: "heart-rate", size: 40)],
      queuedTransfers: [.init(id: 3, identifier: "photo", size: 20_480, time: now - 60_000)]),
    watch: PairSnapshot.Device(
      role: .watch, runningPID: 4343, isActivated: false,
      applicationContext: [.init(identifier: "heart-rate", size: 40)],
      receivedContext: [.init(identifier: "score", size: 120), .init(identifier: "theme", size: 64)]))
}

/// A session record as a simulated device journals it.
private func record(
  _ sequence: UInt64, _ identifier: String, _ transiting: TransitingType, bytes: Int, at milliseconds: Int64,
  kind: TrafficKind = .pass, error: String? = nil, by device: String? = nil, transfer: String? = nil
) -> TrafficRecord {
  let peer = device.map { $0.hasSuffix("/phone") ? "desk/watch" : "desk/phone" }
  return TrafficRecord(
    sequence: sequence, milliseconds: milliseconds, processIdentifier: 4242, sender: "device run",
    transiting: transiting.rawValue, kind: kind, identifier: identifier, bytes: bytes,
    outcome: error == nil ? .ok : .failed, error: error,
    details: TrafficDetails(
      device: device, peer: peer, delivery: device == nil ? nil : error == nil ? .delivered : .failed,
      transfer: transfer))
}

/// The harness with desk's two group directories and their traffic: a context sent, a message
/// that failed (the watch was down), a reply that timed out, a transfer the watch stored; and a
/// pass of the other pair.
private func harness(width: Int, height: Int) -> DashboardHarness {
  var harness = DashboardHarness(width: width, height: height)
  let now = harness.now
  var events: [ModelEvent] = []
  for directory in [phoneGroup, watchGroup, otherGroup] {
    events += [.directoryAppeared(directory), .directoryScanned(directory, mailboxes: [:], initial: true)]
  }
  let notReachable =
    "the counterpart device is not reachable: start it with device run (WCErrorCodeNotReachable 7007)"
  let timedOut = "no reply came within 2.0 s (WCErrorCodeMessageReplyTimedOut 7012)"
  events += [
    .journalRecords(
      directory: phoneGroup,
      [
        record(
          1, "score", .sessionContext, bytes: 120, at: now - 9_000, by: "desk/phone",
          transfer: "desk/phone#context-1"),
        record(
          2, "greet", .sessionMessage, bytes: 12, at: now - 7_000, error: notReachable, by: "desk/phone"),
        record(
          3, "ping", .sessionMessage, bytes: 0, at: now - 5_000, kind: TrafficKind(rawValue: "reply"),
          error: timedOut, by: "desk/phone", transfer: "desk/phone#message-1-1"),
      ], initial: false),
    .journalRecords(
      directory: watchGroup,
      [
        record(
          1, "photo", .sessionFile, bytes: 20_480, at: now - 3_000, by: "desk/watch", transfer: "desk/phone#3"
        )
      ], initial: false),
    // A plain record of another pair whose name starts with desk's.
    .journalRecords(
      directory: otherGroup, [record(1, "elsewhere", .sessionMessage, bytes: 5, at: now - 1_000)],
      initial: false),
  ]
  harness.send(.modelEvents(events, at: now))
  harness.send(.pairs([desk(now: now)]))
  return harness
}

/// Moves the tree's selection down to `node`.
private func select(_ node: TreeNodeID, in harness: inout DashboardHarness) {
  for _ in 0..<harness.state.treeRowCount where harness.state.selection != node { harness.type("j") }
  #expect(harness.state.selection == node)
}

private func text(_ harness: DashboardHarness) -> [String] {
  harness.state.contentsLines().map {
    String(repeating: " ", count: $0.indent) + $0.pieces.map(\.text).joined()
  }
}

@Suite struct PairTrafficTests {
  @Test func aDeviceShowsItsOwnTrafficNewestFirstWithFailuresAndTheirErrors() {
    var harness = harness(width: 120, height: 40)
    select(.device(pair: "desk", role: .phone), in: &harness)
    let lines = text(harness)
    let traffic = Array(lines.drop { !$0.hasPrefix("traffic (") })
    #expect(traffic.first == "traffic (3)", "\(lines)")
    #expect(traffic.count == 1 + 3 + 2, "\(traffic)")
    // Newest first: the reply that timed out, the message that failed, the context.
    #expect(traffic[1].contains("FAILED") && traffic[1].contains("msg") && traffic[1].hasSuffix("ping"))
    #expect(traffic[2].hasPrefix("      reply timed out (7012): no reply came within 2.0 s"), "\(traffic)")
    #expect(traffic[3].contains("FAILED") && traffic[3].contains("greet  12 B"))
    #expect(traffic[4].hasPrefix("      not reachable (7007): the counterpart device"), "\(traffic)")
    #expect(
      traffic[5].contains("delivered") && traffic[5].contains("ctx") && traffic[5].contains("score  120 B"))
    // Wide enough for each session entry's route.
    #expect(traffic[1].contains("phone -> watch FAILED reply"), "\(traffic)")
    #expect(!lines.joined().contains("elsewhere") && !lines.joined().contains("photo  20 KB  "))
    #expect(harness.role(of: "FAILED") == "traffic.failed")
  }

  @Test func aPairShowsBothDevicesAndTheTrafficOfEither() {
    var harness = harness(width: 120, height: 40)
    select(.pair("desk"), in: &harness)
    let lines = text(harness)
    #expect(lines.contains("reachable  no: the watch is not activated"), "\(lines)")
    // The two devices side by side: the phone's column, then the watch's.
    let table = lines.map { $0.replacingOccurrences(of: "  +", with: " | ", options: .regularExpression) }
    #expect(table.contains(" | phone | watch"), "\(lines)")
    #expect(table.contains("state | activated | not activated"), "\(table)")
    #expect(table.contains("pid | 4242 | 4343"), "\(table)")
    #expect(table.contains("app ctx | score | 120 B | heart-rate | 40 B"), "\(table)")
    #expect(table.contains(" | theme | 64 B | "), "\(table)")
    #expect(table.contains("recv ctx | heart-rate | 40 B | score | 120 B"), "\(table)")
    #expect(table.contains("queued | #3 photo | 21 KB | none"), "\(table)")
    let traffic = Array(lines.drop { !$0.hasPrefix("traffic (") })
    #expect(traffic.first == "traffic (4)", "\(lines)")
    #expect(
      traffic[1].contains("watch <- phone delivered") && traffic[1].contains("xfer  photo"), "\(traffic)")
    #expect(traffic[2].contains("phone") && traffic[2].contains("FAILED"))
    #expect(!lines.joined().contains("elsewhere"))
    #expect(harness.shows("desk  phone ● watch ◐  unreachable  1 queued"), "\(harness)")
    #expect(harness.shows("watch not activated  ctx heart-rate  recv sc"), "\(harness)")
  }

  @Test func aTransferIsCancelledFromItsDeviceNotFromThePairsTable() {
    var harness = harness(width: 120, height: 40)
    select(.pair("desk"), in: &harness)
    let line = text(harness).firstIndex { $0.hasPrefix("queued") } ?? 0
    harness.type("<Tab>" + String(repeating: "j", count: line) + "d")
    #expect(harness.state.overlay == nil)
    #expect(harness.shows("cancel: select the device whose transfer it is"), "\(harness)")
  }

  @Test(arguments: [(80, 24), (120, 40)])
  func pairScreens(width: Int, height: Int) {
    var harness = harness(width: width, height: height)
    select(.pair("desk"), in: &harness)
    // A short pane scrolls its contents to the traffic.
    if height < 30 { harness.type("<Tab>G") }
    expectSnapshot(harness.screen, named: "pair-traffic-\(width)x\(height)", in: snapshots)
  }

  @Test(arguments: [(80, 24), (120, 40)])
  func deviceScreens(width: Int, height: Int) {
    var harness = harness(width: width, height: height)
    select(.device(pair: "desk", role: .phone), in: &harness)
    if height < 30 { harness.type("<Tab>G") }
    expectSnapshot(harness.screen, named: "device-traffic-\(width)x\(height)", in: snapshots)
  }
}
