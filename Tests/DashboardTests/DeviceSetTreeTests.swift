import Dashboard
import KeyedArchive
import MailboxModel
import SnapshotSupport
import TerminalScreen
import Testing
import WormholeVocabulary

private let snapshots = snapshotDirectory()

private let devices = "/mnt/mac/Library/Developer/CoreSimulator/Devices"
private let phoneGroup = FileName(devices + "/0F1E2D3C/data/Containers/Shared/AppGroup/9A8B7C6D")
private let watchGroup = FileName(devices + "/7A6B5C4D/data/Containers/Shared/AppGroup/3C4D5E6F")

/// Labels as `--device-set` builds them for a set with one active pair.
private let labels = DeviceSetLabels(
  path: devices,
  containers: [
    .init(path: phoneGroup, label: "Ana's iPhone · iOS 17.2 · booted ⇄ Ana's Watch · group.com.example.app"),
    .init(path: watchGroup, label: "Ana's Watch · watchOS 10.2 ⇄ Ana's iPhone · group.com.example.app"),
  ],
  summary: "device set \(devices): 2 devices, 1 pair, 2 groups, read-only (--read-write allows writes)",
  pairs: ["5D4C3B2A active: phone 0F1E2D3C \"Ana's iPhone\", watch 7A6B5C4D \"Ana's Watch\""],
  notes: ["\(devices)/E0D1C2B3: no device.plist, so this device's name, runtime, type and state are unknown"])

/// A dashboard showing a device set's two groups, the watch's wormhole directory a subdirectory.
private func deviceSetHarness(width: Int = 200, height: Int = 16) -> DashboardHarness {
  var harness = DashboardHarness(width: width, height: height, readOnly: true)
  harness.state.showDeviceSet(labels)
  let watchDirectory = watchGroup.appending("wormhole")
  harness.send(
    .modelEvents(
      [
        .directoryAppeared(phoneGroup),
        .directoryScanned(
          phoneGroup, mailboxes: ["button": archive(.string("play")), "count": archive(.integer(3))],
          initial: true),
        .directoryAppeared(watchDirectory),
        .directoryScanned(watchDirectory, mailboxes: ["ranges": archive(.string("1-3"))], initial: true),
      ], at: harness.now))
  return harness
}

/// The dashboard's tree names a device set's containers by device, runtime, pair and group.
@Suite struct DeviceSetTreeTests {
  @Test func theTreeNamesGroupsByDeviceRuntimeAndPair() {
    let harness = deviceSetHarness()
    let text = harness.lines.joined(separator: "\n")
    #expect(
      text.contains("▾ Ana's iPhone · iOS 17.2 · booted ⇄ Ana's Watch · group.com.example.app"), "\(text)")
    #expect(text.contains("▾ Ana's Watch · watchOS 10.2 ⇄ Ana's iPhone · group.com.example.app/wormhole"))
    #expect(!text.contains("0F1E2D3C/data"), "the UDID path is not shown")
    expectSnapshot(harness.screen, named: "device-set-200x16", in: snapshots)
  }

  @Test func pairsAndNotesGoToTheMessageLogAndTheStatusCountsTheNotes() {
    let harness = deviceSetHarness()
    let log = harness.state.messageLog.entries
    #expect(
      log.map(\.text).prefix(2) == [
        "group Ana's iPhone · iOS 17.2 · booted ⇄ Ana's Watch · group.com.example.app at \(phoneGroup.lossyText)",
        "group Ana's Watch · watchOS 10.2 ⇄ Ana's iPhone · group.com.example.app at \(watchGroup.lossyText)",
      ], "\(log)")
    #expect(log.map(\.text).dropFirst(2).first?.hasPrefix("pair 5D4C3B2A active: phone") == true, "\(log)")
    #expect(log.contains { $0.isError && $0.text.hasPrefix("note: \(devices)/E0D1C2B3: no device.plist") })
    #expect(harness.state.status?.text.hasSuffix("; 1 note (L shows them)") == true)
    #expect(harness.state.status?.isError == true)
    var clean = DashboardHarness()
    clean.state.showDeviceSet(DeviceSetLabels(path: "/s", summary: "device set /s: 0 devices"))
    #expect(clean.state.status?.text == "device set /s: 0 devices")
    #expect(clean.state.status?.isError == false)
  }

  @Test func refusalsSayADeviceSetIsReadOnly() {
    var harness = deviceSetHarness()
    harness.type("d")
    #expect(
      harness.state.status?.text.hasSuffix(
        "is disabled (a device set is read-only unless --read-write is given)")
        == true, "\(String(describing: harness.state.status))")
    #expect(harness.effects.allSatisfy { !$0.writes })
  }

  @Test func labelsMatchTheContainerAndWhatIsBelowItOnly() {
    #expect(labels.label(for: phoneGroup)?.hasPrefix("Ana's iPhone") == true)
    #expect(
      labels.label(for: phoneGroup.appending("a").appending("b"))?.hasSuffix("group.com.example.app/a/b")
        == true)
    // A sibling whose name starts with the container's is another directory.
    #expect(labels.label(for: FileName(phoneGroup.lossyText + "0")) == nil)
    #expect(labels.label(for: "/w/AppGroup/group.example") == nil)
  }

  @Test func hostileNamesInLabelsReachTheScreenEscaped() {
    var harness = DashboardHarness()
    let path: FileName = "/set/A/data/Containers/Shared/AppGroup/G"
    harness.state.showDeviceSet(
      DeviceSetLabels(
        path: "/set", containers: [.init(path: path, label: "Evil\u{1B}[2J\nName\u{202E} · group.\u{7}x")]))
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(path),
          .directoryScanned(path, mailboxes: ["m": archive(.integer(1))], initial: true),
        ],
        at: harness.now))
    let text = harness.lines.joined(separator: "\n")
    #expect(text.contains("Evil"), "\(text)")
    for scalar in ["\u{1B}", "\u{7}", "\u{202E}"] { #expect(!text.contains(scalar)) }
    #expect(harness.lines.filter { $0.contains("Evil") }.count == 1, "the newline does not split the row")
  }
}
