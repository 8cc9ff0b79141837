import Dashboard
import DashboardRuntime
import MailboxWatcher
import TestSupport
import Testing
import Wormhole
import WormholeVocabulary

/// A device set's group containers are watched live, as any root.
@Suite struct DeviceSetLiveTests {
  @Test func aMailboxWrittenIntoADeviceSetGroupAppearsLiveUnderItsDevice() throws {
    let set = RealisticDeviceSet()
    let containers = [
      (
        set.container(RealisticDeviceSet.phone, RealisticDeviceSet.phoneGroup),
        "Ana's iPhone · iOS 17.2 · group.a"
      ),
      (set.container(RealisticDeviceSet.oldWatch, RealisticDeviceSet.oldWatchGroup), "old watch · group.old"),
    ]
    let labels = DeviceSetLabels(
      path: set.builder.root.lossyText,
      containers: containers.map { DeviceSetLabels.Container(path: $0.0, label: $0.1) }, summary: "device set"
    )
    let source = try MailboxWatcherSource(roots: containers.map { WatchRoot(path: $0.0, kind: .tree) })
    let executor = RecordingExecutor(MailboxEffectExecutor(isReadOnly: true))
    let oldWatch = containers[1].0.lossyText
    let clock = ManualClock()
    let terminal = InMemoryTerminal(
      width: 120, height: 32, clock: clock, isBusy: { true },
      script: [.waitFor("▾ Ana's iPhone · iOS 17.2 · group.a")]
        + [
          .perform {
            // The app on the old watch writes its first message, into a directory it names.
            _ = try? Wormhole(directory: oldWatch + "/wormhole").passMessage(
              .string("from the watch"), identifier: "live")
          }
        ] + [.waitFor("▾ old watch · group.old/wormhole"), .waitFor("from the watch")] + keys("q"))
    let loop = try DashboardLoop(
      terminal: terminal, source: source, executor: executor, clock: clock,
      configuration: DashboardConfiguration(
        rootPaths: containers.map { $0.0.lossyText }, isReadOnly: true, deviceSet: labels))
    let exit = try loop.run()
    #expect(terminal.failures.isEmpty, "\(terminal.failures)")
    #expect(exit == .quit)
  }
}
