import DeviceSession
import Glibc
import Synchronization

/// A device link that keeps the device's ``ReachabilityReport`` in its home up to date: the
/// link of every ``SimulatedDevice``, around the local one or an ``MQTTDeviceLink``. It passes
/// everything through unchanged, and writes the report before the session hears of a change,
/// so that whoever hears the change from the device (its standard error, its dashboard) finds
/// the report already saying it. A denial of the link (``LinkEvent/denied(_:)``) is reported
/// the same way, and kept in the reports after it: the lasting one (taken over) for good, else
/// the latest refusal until the counterpart is next reachable.
final class ReportingLink: DeviceLink {
  private let base: any DeviceLink
  private let directory: DeviceDirectory
  private let reported = Mutex(Reported())

  /// What the report says now.
  private struct Reported {
    var isReachable = false
    var denial: LinkDenial?
  }

  init(_ base: any DeviceLink, directory: DeviceDirectory) {
    self.base = base
    self.directory = directory
  }

  var queuesWhileUnreachable: Bool { base.queuesWhileUnreachable }

  func start(_ handler: @escaping @Sendable (LinkEvent) -> Void) throws(LinkError) {
    report { $0 = Reported() }
    try base.start { [weak self] event in
      switch event {
      case .reachabilityChanged(let reachable):
        self?.report { reported in
          reported.isReachable = reachable
          // Reachable again: a refusal before it is over (one of a taken-over link is not).
          if reachable && !(reported.denial?.isLasting ?? false) { reported.denial = nil }
        }
      case .denied(let denial):
        self?.report { reported in
          if !(reported.denial?.isLasting ?? false) { reported.denial = denial }
        }
      case .received, .receivedFrames, .refused, .refusedInput: break
      }
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

  /// Changes what is reported with `change` and writes the report (under the lock, so reports
  /// are written in the order of their events); a failure to write (a full disk) leaves `pair
  /// list` saying less, nothing more.
  private func report(_ change: (inout Reported) -> Void) {
    reported.withLock { reported in
      change(&reported)
      let report = ReachabilityReport(
        pid: getpid(), isReachable: reported.isReachable, time: DeviceFiles.now(), denial: reported.denial)
      try? report.write(to: directory)
    }
  }
}
