import Dashboard
import SnapshotSupport
import Testing
import WormholeVocabulary

private let snapshots = snapshotDirectory()

/// Two pairs: `desk` with a running phone holding a context and a queue, `travel` with neither
/// device running; and a name that tries to move the cursor.
private func pairs(now: Int64) -> [PairSnapshot] {
  [
    PairSnapshot(
      name: "travel", phone: PairSnapshot.Device(role: .phone), watch: PairSnapshot.Device(role: .watch)),
    PairSnapshot(
      name: "desk",
      phone: PairSnapshot.Device(
        role: .phone, runningPID: 4242,
        applicationContext: [
          .init(identifier: "score", size: 120), .init(identifier: "theme", size: 64),
          .init(identifier: "volume", size: 8),
        ],
        receivedContext: [.init(identifier: "heart-rate", size: 40)],
        queuedTransfers: [
          .init(id: 3, identifier: "photo", size: 20_480, time: now - 60_000),
          .init(id: 4, identifier: "evil\u{1B}[2J", size: 12, time: now - 1_000),
        ]),
      watch: PairSnapshot.Device(role: .watch)),
  ]
}

@Suite struct PairsBranchTests {
  @Test func noPairsAddsNoBranch() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    let rows = harness.state.treeRowCount
    harness.send(.pairs([]))
    #expect(harness.state.treeRowCount == rows)
    #expect(!harness.shows("pairs"))
  }

  @Test func pairsFollowTheDirectoriesAPairAndEachDeviceARow() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.pairs(pairs(now: harness.now)))
    // The directory and its mailbox, then the branch, then per pair (by name) its two devices.
    #expect(harness.state.treeRowCount == 2 + 1 + 2 * 3)
    #expect(harness.state.node(atRow: 2) == .pairs)
    #expect(harness.state.node(atRow: 3) == .pair("desk"))
    #expect(harness.state.node(atRow: 4) == .device(pair: "desk", role: .phone))
    #expect(harness.state.node(atRow: 5) == .device(pair: "desk", role: .watch))
    #expect(harness.state.node(atRow: 6) == .pair("travel"))
    #expect(harness.state.node(atRow: 8) == .device(pair: "travel", role: .watch))
    #expect(harness.state.node(atRow: 9) == nil)
    #expect(harness.shows("▾ desk ●○ unreachable 2 queued"), "\(harness)")
    #expect(harness.shows("travel  phone ○ watch ○  unreachable"), "\(harness)")
    #expect(harness.shows("phone activated  ctx score,theme +1"), "\(harness)")
    harness.send(.resize(width: 200, height: 30))
    #expect(harness.shows("desk  phone ● watch ○  unreachable  2 queued"), "\(harness)")
    #expect(harness.shows("phone activated  ctx score,theme +1  recv heart-rate  pid 4242"), "\(harness)")
  }

  @Test func theSelectionStaysOnItsDeviceAcrossChangesAndMovesWhenItsPairGoes() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    let all = pairs(now: harness.now)
    harness.send(.pairs(all))
    harness.type("G")
    #expect(harness.state.selection == .device(pair: "travel", role: .watch))
    var started = all
    started[0].watch.runningPID = 77
    harness.send(.pairs(started))
    #expect(harness.state.selection == .device(pair: "travel", role: .watch))
    // Running, not yet activated: a half mark, and still unreachable.
    #expect(harness.shows("watch not activated  ctx -"), "\(harness)")
    #expect(harness.shows("travel  phone ○ watch ◐  unreachable"), "\(harness)")
    started[0].watch.isActivated = true
    harness.send(.pairs(started))
    #expect(harness.shows("watch activated  ctx -"), "\(harness)")
    // `travel` goes: the row that held the selection is clamped to the last row left.
    harness.send(.pairs([all[1]]))
    #expect(harness.state.treeRowCount == 2 + 1 + 3)
    #expect(harness.state.selection == .device(pair: "desk", role: .watch))
  }

  @Test func aSelectedDeviceShowsItsContextsAndQueueEscaped() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.pairs(pairs(now: harness.now)))
    harness.type("jjj")
    #expect(harness.state.selection == .device(pair: "desk", role: .phone))
    let text = harness.state.contentsLines().map { $0.pieces.map(\.text).joined() }
    #expect(text.contains("state      activated, pid 4242"))
    #expect(text.contains("reachable  no: the watch is not running"))
    #expect(text.contains("application context (3)"))
    #expect(text.contains("score  120 B") || text.contains { $0.hasPrefix("score  ") })
    #expect(text.contains("received context (1)"))
    #expect(text.contains("queued transfers (2)"))
    #expect(text.contains { $0.hasPrefix("#3 photo  ") })
    #expect(!text.joined().contains("\u{1B}"))
  }

  @Test(arguments: [(100, 30), (80, 24)])
  func screens(width: Int, height: Int) {
    var harness = DashboardHarness(width: width, height: height, mailboxes: ["button": .string("tap")])
    harness.send(.pairs(pairs(now: harness.now)))
    harness.type("jjj")
    expectSnapshot(harness.screen, named: "pairs-device-\(width)x\(height)", in: snapshots)
  }

  @Test func pairsAloneShowWithoutAnyDirectory() {
    var harness = DashboardHarness()
    harness.send(.pairs(pairs(now: harness.now)))
    #expect(!harness.shows("no wormhole directory yet"), "\(harness)")
    #expect(harness.state.selection == .pairs)
    expectSnapshot(harness.screen, named: "pairs-only-100x30", in: snapshots)
  }
}

@Suite struct CancelTransferTests {
  /// The desk phone selected, the contents focused with its cursor on line `line`.
  private func onDeskPhone(line: Int, readOnly: Bool = false) -> DashboardHarness {
    var harness = DashboardHarness(readOnly: readOnly, mailboxes: ["button": .string("tap")])
    var all = pairs(now: harness.now)
    all[1].home = "/home/h"
    harness.send(.pairs(all))
    harness.type("jjj<Tab>" + String(repeating: "j", count: line))
    return harness
  }

  @Test func dOnAQueuedTransferAsksAndYesCancelsIt() {
    var harness = onDeskPhone(line: 10)
    #expect(harness.state.focus == .contents)
    harness.type("d")
    #expect(harness.shows("Cancel transfer #3 (photo) of desk phone?"), "\(harness)")
    harness.type("y")
    #expect(harness.effects == [.cancelTransfer(home: "/home/h", pair: "desk", role: .phone, id: 3)])
    #expect(DashboardEffect.cancelTransfer(home: "", pair: "", role: .watch, id: 1).writes)
  }

  @Test func noCancelsNothingAndOffATransferSaysWhere() {
    var harness = onDeskPhone(line: 11)
    harness.type("dn")
    #expect(harness.effects.isEmpty)
    harness = onDeskPhone(line: 2)
    harness.type("d")
    #expect(harness.state.overlay == nil)
    #expect(harness.shows("put the contents cursor on a queued transfer"), "\(harness)")
  }

  @Test func readOnlyRefusesTheCancel() {
    var harness = onDeskPhone(line: 10, readOnly: true)
    harness.type("d")
    #expect(harness.state.overlay == nil)
    #expect(harness.effects.isEmpty)
    #expect(harness.shows("read-only:"), "\(harness)")
  }
}

@Suite struct PairFoldingTests {
  @Test func enterFoldsAPairsDevicesAndTheWholeBranchAndUnfoldsThem() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.pairs(pairs(now: harness.now)))
    harness.type("jj")
    #expect(harness.state.selection == .pair("desk"))
    harness.type("<Enter>")
    // desk's devices are folded away: travel follows it at once.
    #expect(harness.state.treeRowCount == 2 + 1 + 1 + 3)
    #expect(harness.state.node(atRow: 4) == .pair("travel"))
    #expect(harness.state.selection == .pair("desk") && harness.state.focus == .mailboxes)
    #expect(harness.shows("▸ desk ●○ unreachable 2 queued"), "\(harness)")
    // The fold outlives a change of the pairs.
    var changed = pairs(now: harness.now)
    changed[0].phone.runningPID = 9
    harness.send(.pairs(changed))
    #expect(harness.state.node(atRow: 4) == .pair("travel"))
    harness.type("k<Enter>")
    #expect(harness.state.selection == .pairs)
    #expect(harness.state.treeRowCount == 2 + 1)
    #expect(harness.shows("▸ pairs"), "\(harness)")
    harness.type("<Enter>j<Enter>")
    #expect(harness.state.treeRowCount == 2 + 1 + 2 * 3)
    #expect(harness.state.node(atRow: 4) == .device(pair: "desk", role: .phone))
    // Enter on a device still opens its contents.
    harness.type("j<Enter>")
    #expect(harness.state.focus == .contents)
  }
}
