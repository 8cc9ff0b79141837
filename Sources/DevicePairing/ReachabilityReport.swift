import DeviceSession
import Glibc

/// What a running device last knew of its counterpart, as it keeps it in its home
/// (`<role>/reachability`), so that `pair list` on its machine can tell whether the pair reaches
/// itself whichever link it runs over (a counterpart on another machine through a broker, one
/// stopped with SIGSTOP and judged silent by the heartbeat), instead of guessing from this
/// machine's run locks.
///
/// The file is one line, `PID reachable|unreachable TIME` (`TIME` in nanoseconds since 1970),
/// and a second, `denied takenOver|refused REASON`, once what carries the link denied the device
/// itself (``LinkDenial``: the latest, or the lasting one); replaced atomically by
/// ``ReportingLink`` when the link starts (unreachable), at each change of reachability and at
/// a denial, and removed when the link stops. A report counts only while the process `PID`
/// holds the device's run lock: one left by a device that died is stale.
public struct ReachabilityReport: Sendable, Equatable {
  /// The device process that wrote it.
  public var pid: Int32
  /// Whether its link reached the counterpart then.
  public var isReachable: Bool
  /// When it was written, in nanoseconds since 1970.
  public var time: Int64
  /// Why what carries the link refused the device itself (taken over by another run of its
  /// role, a publication its broker's ACL refused), if it did: the lasting denial, else the latest.
  public var denial: LinkDenial?

  public init(pid: Int32, isReachable: Bool, time: Int64, denial: LinkDenial? = nil) {
    self.pid = pid
    self.isReachable = isReachable
    self.time = time
    self.denial = denial
  }

  /// The longest reason written, in bytes (a longer one is cut at a character).
  static let reasonLimit = 1024
  /// The largest report read (a pid, a word, a time and a denial).
  static let byteLimit = reasonLimit + 128

  /// The report's file for the device of `directory`.
  public static func path(of directory: DeviceDirectory) -> String { directory.path + "/reachability" }

  /// The report in `directory`, `nil` when there is none or it cannot be read as one.
  public static func read(_ directory: DeviceDirectory) -> ReachabilityReport? {
    guard let bytes = try? DeviceFiles.read(path(of: directory), limit: byteLimit),
      let text = String(validating: bytes, as: UTF8.self)
    else { return nil }
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let fields = lines.first?.split(separator: " ") ?? []
    guard fields.count == 3, let pid = Int32(fields[0]), pid > 0, let time = Int64(fields[2]) else {
      return nil
    }
    let isReachable: Bool
    switch fields[1] {
    case "reachable": isReachable = true
    case "unreachable": isReachable = false
    default: return nil
    }
    return ReachabilityReport(
      pid: pid, isReachable: isReachable, time: time, denial: lines.count > 1 ? denial(lines[1]) : nil)
  }

  /// The denial a report's second line says (`denied KIND REASON`), `nil` for none or another line.
  private static func denial(_ line: Substring) -> LinkDenial? {
    let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    guard fields.count == 3, fields[0] == "denied", let kind = LinkDenial.Kind(rawValue: String(fields[1]))
    else {
      return nil
    }
    return LinkDenial(kind, reason: String(fields[2]))
  }

  /// Writes the report into `directory`, replacing the one before (atomically).
  func write(to directory: DeviceDirectory) throws(SystemCallFailure) {
    var text = "\(pid) \(isReachable ? "reachable" : "unreachable") \(time)\n"
    if let denial {
      // One line, of at most the limit: cut at a character, line breaks made spaces.
      var reason = ""
      for character in denial.reason {
        let piece = character.isNewline ? " " : String(character)
        guard reason.utf8.count + piece.utf8.count <= Self.reasonLimit else { break }
        reason += piece
      }
      text += "denied \(denial.kind.rawValue) \(reason)\n"
    }
    try DeviceFiles.writeAtomically(Array(text.utf8), to: Self.path(of: directory))
  }

  /// Removes the report of `directory`.
  static func remove(from directory: DeviceDirectory) {
    _ = unlink(path(of: directory))
  }
}
