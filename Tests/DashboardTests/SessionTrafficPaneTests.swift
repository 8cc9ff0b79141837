import Dashboard
import MailboxModel
import SnapshotSupport
import TerminalScreen
import Testing
import WormholeVocabulary

private let snapshots = snapshotDirectory()
private let watchGroup: FileName = "/w/pairs/desk/watch/AppGroup/group.example"

private func session(
  _ sequence: UInt64, _ identifier: String, _ transiting: TransitingType, _ delivery: TrafficDelivery,
  device: String = "desk/phone", peer: String = "desk/watch", transfer: String, kind: TrafficKind = .pass,
  error: String? = nil, at milliseconds: Int64
) -> TrafficRecord {
  TrafficRecord(
    sequence: sequence, milliseconds: milliseconds, processIdentifier: 4242, sender: "device",
    transiting: transiting.rawValue, kind: kind, identifier: identifier, bytes: 12,
    outcome: error == nil ? .ok : .failed, error: error,
    details: TrafficDetails(device: device, peer: peer, delivery: delivery, transfer: transfer))
}

/// A pair's traffic: a message delivered and its reply, one failed (7007), a reply timeout
/// (7012), a context queued then delivered, a transfer queued, stored on the watch, cancelled.
private func pairTraffic(width: Int, height: Int) -> DashboardHarness {
  var harness = DashboardHarness(width: width, height: height)
  let now = harness.now
  let phone: [TrafficRecord] = [
    session(1, "tap", .sessionMessage, .delivered, transfer: "desk/phone#message-1-1", at: now),
    session(
      2, "tap", .sessionMessage, .delivered, transfer: "desk/phone#message-1-1",
      kind: TrafficKind(rawValue: "reply"),
      at: now + 5),
    session(
      3, "tap", .sessionMessage, .failed, transfer: "desk/phone#message-2",
      error: "the counterpart device is not reachable (WCErrorCodeNotReachable 7007)", at: now + 10),
    session(
      4, "ask", .sessionMessage, .failed, transfer: "desk/phone#message-3-2",
      kind: TrafficKind(rawValue: "reply"),
      error: "no reply came within 0.2 s (WCErrorCodeMessageReplyTimedOut 7012)", at: now + 20),
    session(5, "mode", .sessionContext, .queued, transfer: "desk/phone#context-1", at: now + 30),
    session(6, "mode", .sessionContext, .delivered, transfer: "desk/phone#context-1", at: now + 40),
    session(7, "doc", .sessionFile, .queued, transfer: "desk/phone#1", at: now + 50),
    session(8, "old", .sessionFile, .cancelled, transfer: "desk/phone#2", at: now + 60),
  ]
  let watch = [
    session(
      1, "doc", .sessionFile, .delivered, device: "desk/watch", peer: "desk/phone", transfer: "desk/phone#1",
      at: now + 55)
  ]
  harness.send(
    .modelEvents(
      [
        .directoryAppeared(group), .journalRecords(directory: group, phone, initial: false),
        .directoryAppeared(watchGroup), .journalRecords(directory: watchGroup, watch, initial: false),
      ], at: now + 70))
  harness.send(.clock(now + 5_000))
  return harness
}

@Suite struct SessionTrafficPaneTests {
  /// The delivery state where the kind is and `device -> peer` in a column of its own at 120
  /// columns; at 80 the compact form, the direction before the state (`->queued`, `<-delivered`);
  /// failures read FAILED as any other.
  @Test(arguments: [(120, 30), (80, 24)])
  func sessionEntriesShowDeliveryAndRoute(width: Int, height: Int) {
    let harness = pairTraffic(width: width, height: height)
    expectSnapshot(harness.screen, named: "session-traffic-\(width)x\(height)", in: snapshots)
    let lines = harness.lines
    let full = width >= 120
    #expect(lines.contains { $0.contains(full ? "desk/phone -> desk/watch" : "->delivered") })
    #expect(lines.contains { $0.contains(full ? "desk/watch <- desk/phone" : "<-delivered") })
    for state in ["delivered", "queued", "cancelled", "FAILED", "FAILED reply", "replied"] {
      #expect(lines.contains { $0.contains(state) }, "\(state) is shown")
    }
  }

  @Test func hostileDeviceNamesAreEscaped() {
    var harness = DashboardHarness(width: 260, height: 30)
    let record = session(
      1, "tap", .sessionMessage, .delivered, device: "ev\u{1B}[2Jil/phone", peer: "ev\u{1B}[2Jil/watch",
      transfer: "ev\u{1B}[2Jil/phone#message-1-1", at: harness.now)
    harness.send(
      .modelEvents(
        [.directoryAppeared(group), .journalRecords(directory: group, [record], initial: false)],
        at: harness.now))
    #expect(!harness.lines.joined().contains("\u{1B}"))
    #expect(harness.lines.contains { $0.contains(#""ev\u{1b}[2Jil/phone" -> "ev\u{1b}[2Jil/watch""#) })
  }
}
