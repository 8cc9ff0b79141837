import Dashboard
import MailboxModel
import Testing
import WormholeVocabulary

private let devices = "/set/Devices"

/// A group container of the device `udid`.
private func container(_ udid: String, _ group: String = "9A8B") -> FileName {
  FileName(devices + "/" + udid + "/data/Containers/Shared/AppGroup/" + group)
}

/// Three devices whose UDIDs sort the other way round from their names, and two groups labelled
/// alike (two devices of one name and runtime).
private let zoe = container("01AB")
private let bob = container("5C5C")
private let ana = container("F0F0")
private let twinFirst = container("2222")
private let twinSecond = container("1111")
private let labels = DeviceSetLabels(
  path: devices,
  containers: [
    .init(path: ana, label: "ana's iPhone · iOS 17.2 · group.app"),
    .init(path: bob, label: "Bob's Watch · watchOS 10.2 · group.app"),
    .init(path: zoe, label: "Zoe's iPad · iPadOS 17.2 · group.app"),
    .init(path: twinFirst, label: "iPhone 15 · iOS 17.2 · group.app"),
    .init(path: twinSecond, label: "iPhone 15 · iOS 17.2 · group.app"),
  ])

/// A device set's groups are listed in the tree by their labels, not by their UDID paths.
@Suite struct DeviceSetOrderTests {
  @Test func theTreeListsGroupsByLabelThenPath() {
    var harness = DashboardHarness(width: 160, height: 30, readOnly: true)
    harness.state.showDeviceSet(labels)
    let outside: FileName = "/w/peers/chat/a11c"
    var events: [ModelEvent] = []
    for path in [zoe, bob, ana, twinFirst, twinSecond, ana.appending("wormhole"), outside] {
      events += [
        .directoryAppeared(path),
        .directoryScanned(path, mailboxes: ["m": archive(.integer(1))], initial: true),
      ]
    }
    harness.send(.modelEvents(events, at: harness.now))
    let branches = (0..<harness.state.treeRowCount).compactMap { row -> FileName? in
      guard case .directory(let path)? = harness.state.node(atRow: row) else { return nil }
      return path
    }
    // Case does not decide (ana before Bob); alike labels go by path (1111 before 2222); a
    // container's subdirectory follows it; a directory outside the set comes last.
    #expect(
      branches == [ana, ana.appending("wormhole"), bob, twinSecond, twinFirst, zoe, outside], "\(harness)")
    let rows = harness.lines.filter { $0.hasPrefix("▾ ") }
    #expect(rows.first?.hasPrefix("▾ ana's iPhone") == true, "\(harness)")
    #expect(rows.dropFirst(5).first?.hasPrefix("▾ Zoe's iPad") == true, "\(harness)")
  }

  @Test func aGroupWithoutAMailboxIsAnEmptyRowUntilOneAppears() {
    var harness = DashboardHarness(width: 160, height: 30, readOnly: true)
    harness.state.showDeviceSet(labels)
    let wormhole = bob.appending("wormhole")
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(ana),
          .directoryScanned(ana, mailboxes: ["m": archive(.integer(1))], initial: true),
        ],
        at: harness.now))
    // Ana's group and its mailbox, then the four groups without one, each a row saying so.
    let branches = (0..<harness.state.treeRowCount).compactMap { harness.state.node(atRow: $0) }
    #expect(
      branches == [
        .directory(ana), .mailbox(directory: ana, identifier: "m"), .directory(bob), .directory(twinSecond),
        .directory(twinFirst), .directory(zoe),
      ], "\(harness)")
    let bobRow = harness.lines.first { $0.hasPrefix("▾ Bob's Watch") } ?? ""
    #expect(bobRow.contains(" no mailbox │"), "\(harness)")
    #expect(harness.lines.first { $0.hasPrefix("▾ ana's iPhone") }?.contains(" 1 │") == true, "\(harness)")
    harness.type("gjj")
    #expect(harness.state.selection == .directory(bob))
    let contents = harness.state.contentsLines().map { $0.pieces.map(\.text).joined() }
    #expect(contents.contains { $0.hasPrefix("no mailbox:") }, "\(contents)")
    // A mailbox written in a subdirectory of Bob's container: the directory replaces the empty row.
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(wormhole),
          .directoryScanned(wormhole, mailboxes: ["n": archive(.integer(2))], initial: true),
        ], at: harness.now))
    #expect(harness.state.node(atRow: 2) == .directory(wormhole), "\(harness)")
    #expect(harness.state.node(atRow: 3) == .mailbox(directory: wormhole, identifier: "n"))
    #expect(!harness.state.treePane.directoryPaths.contains(bob), "\(harness)")
    #expect(harness.state.treePane.directoryPaths == [ana, wormhole, twinSecond, twinFirst, zoe])
  }

  @Test func aNarrowTreeLeavesOutWholePartsOfALabelKeepingTheDeviceAndTheGroup() {
    let phone = container("0F1E")
    let long = DeviceSetLabels(
      path: devices,
      containers: [
        .init(path: phone, label: "Ana's iPhone · iOS 17.2 · booted ⇄ Ana's Watch · group.com.example.app")
      ])
    var harness = DashboardHarness(width: 120, height: 20, readOnly: true)
    harness.state.showDeviceSet(long)
    let wormhole = phone.appending("wormhole")
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(phone),
          .directoryScanned(phone, mailboxes: ["m": archive(.integer(1))], initial: true),
          .directoryAppeared(wormhole),
          .directoryScanned(wormhole, mailboxes: ["n": archive(.integer(1))], initial: true),
        ], at: harness.now))
    // 48 columns of tree: the state and pair go first, whole, then the runtime.
    #expect(harness.shows("▾ Ana's iPhone · … · group.com.example.app "), "\(harness)")
    // The subdirectory's label is longer still: cut in its middle, its start and end kept.
    let subdirectory = harness.lines.first { $0.contains("/wormhole") } ?? ""
    #expect(subdirectory.hasPrefix("▾ Ana's iPhone · "), "\(harness)")
    #expect(subdirectory.contains("….example.app/wormhole 1 "), "\(harness)")
    harness.send(.resize(width: 160, height: 20))
    #expect(harness.shows("▾ Ana's iPhone · iOS 17.2 · … · group.com.example.app "), "\(harness)")
    // Too narrow for the device and the group whole: cut in the middle, as any name is.
    harness.send(.resize(width: 80, height: 20))
    let row = harness.lines.first { $0.hasPrefix("▾ Ana's") } ?? ""
    #expect(row.contains("…") && row.contains(".app"), "\(harness)")
  }

  @Test func labelsArrivingAfterTheDirectoriesReorderTheTree() {
    var harness = DashboardHarness(width: 160, height: 30, readOnly: true)
    var events: [ModelEvent] = []
    for path in [zoe, ana] {
      events += [
        .directoryAppeared(path),
        .directoryScanned(path, mailboxes: ["m": archive(.integer(1))], initial: true),
      ]
    }
    harness.send(.modelEvents(events, at: harness.now))
    #expect(harness.state.node(atRow: 0) == .directory(zoe), "by path before any label")
    harness.state.showDeviceSet(labels)
    #expect(harness.state.node(atRow: 0) == .directory(ana), "\(harness)")
    // Ana and her mailbox; Bob and the twins, whose groups hold none; then Zoe.
    #expect(harness.state.node(atRow: 5) == .directory(zoe), "\(harness)")
  }
}
