import Glibc
import WormholeVocabulary

/// When a process started, on the wall clock the traffic journal's records carry (milliseconds
/// since 1970), for a listener that hears what was passed from its process's start on
/// (``Wormhole/listenForMessage(withIdentifier:sinceStartOf:listener:)``): a script's
/// `listen ID &` followed at once by `pass ID`.
///
/// The kernel's start time (`/proc/PID/stat` field 22) counts clock ticks of `CLOCK_BOOTTIME`
/// (`sysconf(_SC_CLK_TCK)`, 100 a second: 10 ms), truncated: the process started within its start
/// tick. It is carried to the wall clock by the offset between `CLOCK_REALTIME` and
/// `CLOCK_BOOTTIME` read now, each bound reading them in the order that errs on its own side.
/// `/proc/stat`'s `btime` is not used: a whole second, it would replay a message passed up to a
/// second before the process. A second upper bound is now less the CPU time the calling thread
/// has run (a thread runs no longer than it exists): on an idle machine it is within a
/// millisecond or two of the start, where the tick can be 10 ms away.
public struct ProcessStart: Sendable, Equatable {
  /// The process started no earlier than this (the start tick's beginning, rounded down): a
  /// record it or a later process wrote is dated at least this (records truncate their time to
  /// the millisecond).
  public let earliest: Int64
  /// The process had started by then (the closer of the two upper bounds, rounded up): a record
  /// dated this or later was written after the start.
  public let latest: Int64
  public let processIdentifier: Int32
  /// The kernel's start, in clock ticks since boot.
  public let ticks: Int64

  init(earliest: Int64, latest: Int64, processIdentifier: Int32, ticks: Int64) {
    self.earliest = earliest
    self.latest = latest
    self.processIdentifier = processIdentifier
    self.ticks = ticks
  }

  /// The current process's start; `nil` without a readable `/proc/self/stat`.
  public static func current() -> ProcessStart? {
    guard let ticks = ProcessStat(process: "self")?.startTicks else { return nil }
    let perSecond = Int64(sysconf(Int32(_SC_CLK_TCK)))
    guard perSecond > 0 else { return nil }
    // Each bound moves only to its own side with the nanoseconds between readings: the CPU time
    // before the wall clock, the wall clock before the boot clock for the earliest, after it
    // for the latest.
    var run = timespec()
    var wallBefore = timespec()
    var boot = timespec()
    var wallAfter = timespec()
    guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &run) == 0, clock_gettime(CLOCK_REALTIME, &wallBefore) == 0,
      clock_gettime(CLOCK_BOOTTIME, &boot) == 0, clock_gettime(CLOCK_REALTIME, &wallAfter) == 0
    else { return nil }
    let tick = 1_000_000_000 / perSecond
    let bootNow = nanoseconds(boot)
    let tickStart = nanoseconds(wallBefore) - (bootNow - ticks * tick)
    let tickEnd = nanoseconds(wallAfter) - (bootNow - (ticks + 1) * tick)
    let lessRunTime = nanoseconds(wallAfter) - nanoseconds(run)
    return ProcessStart(
      earliest: floorMilliseconds(tickStart), latest: (min(tickEnd, lessRunTime) + 999_999) / 1_000_000,
      processIdentifier: getpid(), ticks: ticks)
  }

  /// Whether `record` was written after this process started. Dated `latest` or later: yes;
  /// before `earliest`: no. Between them (at most one tick, 10 ms), by its writer: this process;
  /// or a process numbered after it (so created after it, as a script's `pass` after its
  /// `listen &`) that has exited or started no earlier (a number that wrapped around to one
  /// still running, started before, says no). A record of another process in that window is not
  /// taken: a message passed in the 10 ms before the start is never replayed.
  public func startedBefore(_ record: TrafficRecord) -> Bool {
    if record.milliseconds >= latest { return true }
    guard record.milliseconds >= earliest else { return false }
    if record.processIdentifier == processIdentifier { return true }
    guard record.processIdentifier > processIdentifier else { return false }
    guard let writer = ProcessStat(process: String(record.processIdentifier))?.startTicks else { return true }
    return writer >= ticks
  }

  private static func nanoseconds(_ time: timespec) -> Int64 {
    Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }

  private static func floorMilliseconds(_ nanoseconds: Int64) -> Int64 {
    nanoseconds >= 0 ? nanoseconds / 1_000_000 : (nanoseconds - 999_999) / 1_000_000
  }
}
