import DeviceSession
import Glibc

/// A device link that keeps the device's ``ReachabilityReport`` in its home up to date: the
/// link of every ``SimulatedDevice``, around the local one or an ``MQTTDeviceLink``. It passes
/// everything through unchanged, and writes the report before the session hears of a change,
/// so that whoever hears the change from the device (its standard error, its dashboard) finds
/// the report already saying it.
final class ReportingLink: DeviceLink {
  private let base: any DeviceLink
  private let directory: DeviceDirectory

  init(_ base: any DeviceLink, directory: DeviceDirectory) {
    self.base = base
    self.directory = directory
  }

  var queuesWhileUnreachable: Bool { base.queuesWhileUnreachable }

  func start(_ handler: @escaping @Sendable (LinkEvent) -> Void) throws(LinkError) {
    report(false)
    let directory = directory
    try base.start { event in
      if case .reachabilityChanged(let reachable) = event { Self.report(reachable, in: directory) }
      handler(event)
    }
  }

  func send(_ frame: DeviceFrame) -> Bool { base.send(frame) }

  func receiveOnCallingThread(
    until isDone: () -> Bool, deadline: ContinuousClock.Instant, starting start: () -> Void
  ) -> Bool {
    base.receiveOnCallingThread(until: isDone, deadline: deadline, starting: start)
  }

  func stop() {
    base.stop()
    ReachabilityReport.remove(from: directory)
  }

  private func report(_ reachable: Bool) { Self.report(reachable, in: directory) }

  /// Writes the report; a failure to (a full disk) leaves `pair list` saying less, nothing more.
  private static func report(_ reachable: Bool, in directory: DeviceDirectory) {
    let report = ReachabilityReport(pid: getpid(), isReachable: reachable, time: DeviceFiles.now())
    try? report.write(to: directory)
  }
}
