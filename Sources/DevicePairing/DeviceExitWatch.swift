import Glibc

/// Hears a running device's process end, as an event (SIGKILL included), from any process on
/// the machine: what `pair list --watch` or the dashboard needs to show a device go away within
/// a second without polling its run lock.
///
/// Built on a Linux pidfd of the run lock's holder, which becomes readable when the process
/// ends. The pid is read from the lock and checked again once the pidfd is open, so a pid reused
/// by an unrelated process is never watched. `pidfd_open` (Linux 5.3, glibc 2.36) is looked up
/// at run time, as Glibc's module does not export it; where it is missing, ``init(directory:)``
/// returns `nil` and a caller falls back to polling ``RunLock/holder(at:)``.
public final class DeviceExitWatch: Sendable {
  private typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32

  /// The watched process.
  public let pid: Int32
  /// Readable (`POLLIN`) once the process ended: add it to a `poll` loop, or call
  /// ``waitForExit(seconds:)``.
  public let descriptor: Int32

  /// A watch on the process that runs the device of `directory`, or `nil` when none runs (or
  /// this system has no pidfds).
  public convenience init?(directory: DeviceDirectory) { self.init(runLockPath: directory.runLockPath) }

  /// A watch on the process that holds the run lock at `runLockPath` (a device's, a running
  /// peer's `ID.lock`), or `nil` when none holds it (or this system has no pidfds).
  public init?(runLockPath: String) {
    guard let pid = RunLock.holder(at: runLockPath), pid > 0, let program = dlopen(nil, RTLD_NOW)
    else { return nil }
    // libc stays loaded, so the symbol outlives the handle.
    defer { dlclose(program) }
    guard let symbol = dlsym(program, "pidfd_open") else { return nil }
    let open = unsafeBitCast(symbol, to: PidfdOpen.self)
    let descriptor = open(pid, 0)
    guard descriptor >= 0 else { return nil }
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    // The holder may have ended and its pid been reused between the read and the open.
    guard RunLock.holder(at: runLockPath) == pid else {
      _ = close(descriptor)
      return nil
    }
    self.pid = pid
    self.descriptor = descriptor
  }

  deinit { _ = close(descriptor) }

  /// Whether the process ended within `seconds` (at once when it already has).
  public func waitForExit(seconds: Double) -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    let milliseconds = Int32(max(0, min(seconds, 86_400)) * 1000)
    while true {
      let ready = poll(&entry, 1, milliseconds)
      if ready < 0 && errno == EINTR { continue }
      return ready > 0
    }
  }
}
