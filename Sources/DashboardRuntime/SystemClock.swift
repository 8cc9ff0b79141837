import Glibc

/// The real-time clock (`CLOCK_REALTIME`), in milliseconds since 1970.
public struct SystemClock: DashboardClock {
  public init() {}

  public func now() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
  }
}
