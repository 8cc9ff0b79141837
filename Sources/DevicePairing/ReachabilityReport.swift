import DeviceSession
import Glibc

/// What a running device last knew of its counterpart, as it keeps it in its home
/// (`<role>/reachability`), so that `pair list` on its machine can tell whether the pair reaches
/// itself whichever link it runs over (a counterpart on another machine through a broker, one
/// stopped with SIGSTOP and judged silent by the heartbeat), instead of guessing from this
/// machine's run locks.
///
/// The file is one line, `PID reachable|unreachable TIME` (`TIME` in nanoseconds since 1970),
/// replaced atomically by ``ReportingLink`` when the link starts (unreachable) and at each
/// change of reachability, and removed when the link stops. A report counts only while the
/// process `PID` holds the device's run lock: one left by a device that died is stale.
public struct ReachabilityReport: Sendable, Equatable {
  /// The device process that wrote it.
  public var pid: Int32
  /// Whether its link reached the counterpart then.
  public var isReachable: Bool
  /// When it was written, in nanoseconds since 1970.
  public var time: Int64

  /// The largest report read (a pid, a word and a time).
  static let byteLimit = 128

  /// The report's file for the device of `directory`.
  public static func path(of directory: DeviceDirectory) -> String { directory.path + "/reachability" }

  /// The report in `directory`, `nil` when there is none or it cannot be read as one.
  public static func read(_ directory: DeviceDirectory) -> ReachabilityReport? {
    guard let bytes = try? DeviceFiles.read(path(of: directory), limit: byteLimit),
      let text = String(validating: bytes, as: UTF8.self)
    else { return nil }
    let fields = text.split(separator: "\n").first?.split(separator: " ") ?? []
    guard fields.count == 3, let pid = Int32(fields[0]), pid > 0, let time = Int64(fields[2]) else {
      return nil
    }
    switch fields[1] {
    case "reachable": return ReachabilityReport(pid: pid, isReachable: true, time: time)
    case "unreachable": return ReachabilityReport(pid: pid, isReachable: false, time: time)
    default: return nil
    }
  }

  /// Writes the report into `directory`, replacing the one before (atomically).
  func write(to directory: DeviceDirectory) throws(SystemCallFailure) {
    let line = "\(pid) \(isReachable ? "reachable" : "unreachable") \(time)\n"
    try DeviceFiles.writeAtomically(Array(line.utf8), to: Self.path(of: directory))
  }

  /// Removes the report of `directory`.
  static func remove(from directory: DeviceDirectory) {
    _ = unlink(path(of: directory))
  }
}
