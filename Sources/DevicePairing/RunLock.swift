import Glibc
import Synchronization
import Wormhole

/// The lock a running device holds on `<role>/run.lock`: an open-file-description lock, so it
/// is released the moment the process ends, SIGKILL included, and a second process is refused.
///
/// Open-file-description locks (`F_OFD_SETLK`) rather than `flock`: they behave the same (held
/// per open file, dropped on close or death), and `F_OFD_GETLK` lets ``holder(at:)`` ask whether
/// a device runs without taking the lock, so asking can never make a starting device fail.
public final class RunLock: Sendable {
  // Linux's ABI numbers; Glibc hides the names behind _GNU_SOURCE.
  private static let getLock: Int32 = 36
  private static let setLock: Int32 = 37

  /// The locked file.
  public let path: String
  private let descriptor: Mutex<Int32>

  /// What stops a lock from being taken.
  public enum Failure: Error, Sendable, Equatable {
    /// Another process holds it; its pid when it wrote one.
    case held(pid: Int32?)
    /// The file could not be opened or locked.
    case unavailable(String)
  }

  /// Takes the lock at `path` (creating the file) and writes this process's pid into it.
  /// - Parameter waits: whether to try again for up to ``sweepWait`` while another process holds
  ///   it, rather than fail at once: for a lock only a sweep of stale files may hold a moment (a
  ///   new peer's: ids are never reused). Bounded, so that a real holder is still refused.
  public convenience init(path: String, waits: Bool = false) throws(Failure) {
    try self.init(path: path, waits: waits, afterOpening: {})
  }

  /// How many times a lock file removed between its opening and its locking is made again.
  static let attempts = 8

  /// How long a lock that `waits` is tried again while held (a sweep holds one for the few
  /// unlinks of a killed process's files), in steps of a millisecond.
  public static let sweepWait: Duration = .milliseconds(200)

  /// Takes the lock at `path`; `afterOpening` runs between each opening and its locking (tests
  /// remove the file there, as another process's sweep of stale files may).
  ///
  /// A sweep that finds the file unlocked may remove it just after it was opened here: the lock
  /// would then be held on a file no longer at `path`, which every later look finds free. So
  /// once locked, the file at `path` must be the one locked; otherwise it is made again.
  init(path: String, waits: Bool = false, afterOpening: () -> Void) throws(Failure) {
    for _ in 0..<Self.attempts {
      let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
      guard descriptor >= 0 else {
        throw .unavailable(
          SystemCallFailure(operation: "open", path: path, code: errno).messageAdvisingAWritableHome)
      }
      afterOpening()
      var request = Self.request(Int16(F_WRLCK))
      var result = fcntl(descriptor, Self.setLock, &request)
      var tries = waits ? Int(Self.sweepWait / .milliseconds(1)) : 0
      while result != 0 && (errno == EAGAIN || errno == EACCES) && tries > 0 {
        tries -= 1
        var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        _ = nanosleep(&pause, nil)
        result = fcntl(descriptor, Self.setLock, &request)
      }
      if result != 0 {
        let code = errno
        _ = close(descriptor)
        if code == EAGAIN || code == EACCES { throw .held(pid: Self.recordedPID(path)) }
        throw .unavailable(SystemCallFailure(operation: "lock", path: path, code: code).message)
      }
      guard Self.isStillAt(path, descriptor) else {
        Self.unlockAndClose(descriptor)
        continue
      }
      let text = Array("\(getpid())\n".utf8)
      _ = ftruncate(descriptor, 0)
      _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
      self.path = path
      self.descriptor = Mutex(descriptor)
      return
    }
    throw .unavailable("the lock file \(path) was removed each time it was taken (\(Self.attempts) times)")
  }

  /// Whether the file open as `descriptor` is still the one at `path`.
  private static func isStillAt(_ path: String, _ descriptor: Int32) -> Bool {
    var opened = stat()
    var named = stat()
    guard fstat(descriptor, &opened) == 0, lstat(path, &named) == 0 else { return false }
    return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
  }

  deinit { release() }

  /// Whether the locked file is still the one at ``path``: `false` once it was removed or
  /// replaced (the device's directory deleted under it), or the lock released. Another process
  /// may then take a lock at ``path`` although this one is held.
  public var isStillHeld: Bool {
    descriptor.withLock { $0 >= 0 && Self.isStillAt(path, $0) }
  }

  /// Releases the lock (unlocking, then closing the file); later calls do nothing.
  ///
  /// Unlocked before it is closed: a child that this process forks holds a copy of the open file
  /// description until it execs (close-on-exec acts only then), and a lock that is merely closed
  /// stays held by that copy, so the device would still look running for a moment after it
  /// stopped. An unlock acts on the description itself, whoever else has it open.
  public func release() {
    descriptor.withLock { descriptor in
      if descriptor >= 0 { Self.unlockAndClose(descriptor) }
      descriptor = -1
    }
  }

  /// Unlocks the file open as `descriptor`, then closes it (see ``release()``).
  private static func unlockAndClose(_ descriptor: Int32) {
    var request = Self.request(Int16(F_UNLCK))
    _ = fcntl(descriptor, setLock, &request)
    _ = close(descriptor)
  }

  /// The pid of the process that holds the lock at `path`, `0` when it holds it but has not
  /// written its pid yet, or `nil` when no process holds it (or there is no such file).
  public static func holder(at path: String) -> Int32? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else { return nil }
    defer { _ = close(descriptor) }
    var request = Self.request(Int16(F_WRLCK))
    guard fcntl(descriptor, getLock, &request) == 0, request.l_type != Int16(F_UNLCK) else { return nil }
    return recordedPID(path) ?? 0
  }

  /// Runs `sweep` unless a process holds the lock at `path`, holding it meanwhile, so that no
  /// process takes it while its owner's files go: what a sweep of a killed process's files does.
  /// `sweep` is told whether the lock file is there (it may then remove it, locked); without a
  /// lock file (a sweep elsewhere removed it) it must leave that path alone: a process may be
  /// making it again right now. Nothing runs when the lock is held, or when the file at `path`
  /// is no longer the one locked (another process made it again meanwhile).
  public static func whileFree(at path: String, _ sweep: (_ hasLockFile: Bool) -> Void) {
    let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else {
      if errno == ENOENT { sweep(false) }
      return
    }
    defer { unlockAndClose(descriptor) }
    var request = Self.request(Int16(F_WRLCK))
    guard fcntl(descriptor, setLock, &request) == 0, isStillAt(path, descriptor) else { return }
    sweep(true)
  }

  /// Whether the process `pid` is stopped (SIGSTOP, SIGTSTP, a debugger): its state in
  /// `/proc/PID/stat` is `T` or `t`. A stopped device answers nothing, so what it last wrote
  /// (its ``ReachabilityReport``) may no longer be true. `false` when it cannot be told.
  public static func isStopped(pid: Int32) -> Bool {
    guard pid > 0 else { return false }
    return ProcessStat(process: String(pid))?.isStopped ?? false
  }

  private static func request(_ type: Int16) -> flock {
    var request = flock()
    request.l_type = type
    request.l_whence = Int16(SEEK_SET)
    request.l_start = 0
    request.l_len = 0
    request.l_pid = 0
    return request
  }

  private static func recordedPID(_ path: String) -> Int32? {
    guard let bytes = try? DeviceFiles.read(path, limit: 64) else { return nil }
    let text = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    return Int32(text).flatMap { $0 > 0 ? $0 : nil }
  }
}
