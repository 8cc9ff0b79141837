import Glibc

/// What `/proc/PROCESS/stat` says of a process that a wormhole's users ask about: whether it is
/// stopped (a device that answers nothing) and when it started (a listener that hears from its
/// start, ``ProcessStart``). The one reader of that file.
public struct ProcessStat: Sendable, Equatable {
  /// Field 3: `R`, `S`, `D`, `T` (stopped), `t` (stopped by a tracer), `Z` ...
  public let state: UInt8
  /// Field 22: when the process started, in clock ticks since boot; `nil` when the line has no
  /// such number.
  public let startTicks: Int64?

  /// Whether the process is stopped (SIGSTOP, SIGTSTP, a debugger).
  public var isStopped: Bool { state == UInt8(ascii: "T") || state == UInt8(ascii: "t") }

  /// The stat of `process` (`"self"` or a pid), `nil` when it cannot be read (no such process).
  public init?(process: String) {
    let descriptor = open("/proc/\(process)/stat", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { _ = close(descriptor) }
    // Its size says 0: read what comes (one read holds the whole line), not what fstat says.
    guard case .bytes(let bytes) = FileSystem.readToEnd(descriptor, expectedSize: 1023, limit: 4096) else {
      return nil
    }
    self.init(statLine: bytes[...])
  }

  /// The stat of one `/proc/PID/stat` line. The command name (field 2) is in parentheses and may
  /// hold spaces and parentheses itself, so fields are counted after its last `)`.
  init?(statLine: ArraySlice<UInt8>) {
    guard let close = statLine.lastIndex(of: UInt8(ascii: ")")) else { return nil }
    // After ")": field 3 (the state) is the first; field 22 is the twentieth.
    let fields = statLine[(close + 1)...].split(separator: UInt8(ascii: " "))
    guard let state = fields.first?.first else { return nil }
    self.state = state
    startTicks = fields.count >= 20 ? Self.number(fields[fields.startIndex + 19]) : nil
  }

  /// A field of decimal digits (the line's last may end in its newline), `nil` otherwise.
  private static func number(_ field: ArraySlice<UInt8>) -> Int64? {
    var value: Int64 = 0
    for byte in field {
      guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
        return byte == UInt8(ascii: "\n") ? value : nil
      }
      let (product, overflow) = value.multipliedReportingOverflow(by: 10)
      guard !overflow else { return nil }
      value = product + Int64(byte - UInt8(ascii: "0"))
    }
    return value
  }
}
