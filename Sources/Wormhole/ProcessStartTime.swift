import Glibc

/// When the current process started, on the wall clock the traffic journal's records carry
/// (milliseconds since 1970), for a listener that must hear what was passed from its process's
/// start on (``Wormhole/listenForMessage(withIdentifier:since:listener:)``).
///
/// The kernel's start time (`/proc/self/stat` field 22) counts clock ticks (`sysconf(_SC_CLK_TCK)`,
/// 100 a second: 10 ms) since boot on `CLOCK_BOOTTIME`, truncated to its tick: the process started
/// in `[ticks, ticks + 1)`. It is carried to the wall clock by the offset between
/// `CLOCK_REALTIME` and `CLOCK_BOOTTIME` read now (two readings nanoseconds apart, the boot clock
/// first, so the offset errs late). `/proc/stat`'s `btime` is not used: it is a whole second,
/// and a start time a second early would replay a message passed a second before the process.
public enum ProcessStartTime {
  /// The earliest wall-clock millisecond that is certainly not before this process started: the
  /// end of its start tick, rounded up to a millisecond. A record whose `milliseconds` is at
  /// least this was written after the process started (records truncate their time to the
  /// millisecond, so a record's time is never later than its writing); one written in the first
  /// tick of the process's life (at most 10 ms, while it is still being loaded) may fall before
  /// it. `nil` when `/proc/self/stat` cannot be read (no `/proc`).
  public static func currentProcessMilliseconds() -> Int64? {
    guard let ticks = startTicks() else { return nil }
    let perSecond = Int64(sysconf(Int32(_SC_CLK_TCK)))
    guard perSecond > 0 else { return nil }
    var boot = timespec()
    var wall = timespec()
    guard clock_gettime(CLOCK_BOOTTIME, &boot) == 0, clock_gettime(CLOCK_REALTIME, &wall) == 0 else {
      return nil
    }
    let bootNanoseconds = Int64(boot.tv_sec) * 1_000_000_000 + Int64(boot.tv_nsec)
    let wallNanoseconds = Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec)
    // The end of the start tick, on the boot clock, then on the wall clock.
    let startEnd = (ticks + 1) * (1_000_000_000 / perSecond)
    let wallStart = wallNanoseconds - (bootNanoseconds - startEnd)
    // Rounded up: never a millisecond before the start.
    return (wallStart + 999_999) / 1_000_000
  }

  /// Field 22 of `/proc/self/stat`. The command name (field 2) is in parentheses and may hold
  /// spaces and parentheses itself, so fields are counted after its last `)`.
  static func startTicks() -> Int64? {
    let descriptor = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { _ = close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 4096)
    var length = 0
    while length < bytes.count {
      let count = bytes[length...].withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      length += count
    }
    return startTicks(statLine: bytes[0..<length])
  }

  /// Field 22 of a `/proc/PID/stat` line.
  static func startTicks(statLine: ArraySlice<UInt8>) -> Int64? {
    guard let close = statLine.lastIndex(of: UInt8(ascii: ")")) else { return nil }
    // After ")": field 3 (the state) is the first; field 22 is the twentieth.
    let fields = statLine[(close + 1)...].split(separator: UInt8(ascii: " "))
    guard fields.count >= 20 else { return nil }
    var value: Int64 = 0
    for byte in fields[19] {
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
