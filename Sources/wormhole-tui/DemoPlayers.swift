import Dispatch
import Foundation
import Glibc
import Synchronization

/// The demo's simulated processes, children of this program running the hidden `demo-player`
/// verb: an app and its extension in the home's application group, and the pair's phone and
/// watch (``DemoDevicePlayer``). Each ends with its parent, even a parent killed with SIGKILL;
/// then a last one, ``DemoReaper``, removes the home once the others are gone.
///
/// The watch is stopped and started again as ``DemoSchedule`` says: a process that ends (its
/// link closes, so the phone sees it unreachable at once) and a new one that activates and is
/// handed what waited for it.
final class DemoPlayers: Sendable {
  /// Hears a change of the watch: it stopped (`false`) or runs again (`true`).
  typealias WatchReport = @Sendable (_ running: Bool) -> Void

  private let home: String
  private let schedule: DemoSchedule
  private let removesHome: Bool
  private let state = Mutex(State())
  /// Wakes the schedule's thread early, when stopping.
  private let wake = DispatchSemaphore(value: 0)
  /// Signalled by the schedule's thread as it ends.
  private let scheduleEnded = DispatchSemaphore(value: 0)

  private struct State {
    var others: [pid_t] = []
    var watch: pid_t?
    var reaper: pid_t?
    /// The write ends of the reaper's two pipes (``DemoReaper``), held by this process only.
    var lifeline: Int32?
    var presence: Int32?
    var stopping = false
    var scheduleRuns = false
  }

  /// The players of the demo in `home`. With `removesHome`, a reaper removes the home should
  /// this process be killed before it can.
  init(home: String, schedule: DemoSchedule = .standard, removesHome: Bool) {
    self.home = home
    self.schedule = schedule
    self.removesHome = removesHome
  }

  /// Starts the app, the extension, the phone and the watch, and the watch's schedule;
  /// `report` hears each time the watch stops or returns.
  func start(reporting report: WatchReport? = nil) throws(CommandError) {
    if removesHome { try startReaper() }
    // Under the lock, so that a stop() that begins meanwhile (a signal) ends all that started.
    let started = try state.withLock { state throws(CommandError) -> Bool in
      for role in ["app", "extension", "phone"] where !state.stopping {
        state.others.append(try spawn(role, presence: state.presence))
      }
      guard !state.stopping else { return false }
      state.watch = try spawn("watch", presence: state.presence)
      state.scheduleRuns = true
      return true
    }
    guard started else { return }
    let startedAt = DispatchTime.now()
    Thread.detachNewThread { [self] in
      runSchedule(from: startedAt, report: report)
      scheduleEnded.signal()
    }
  }

  /// Stops and starts the watch at the schedule's times until ``stop()``.
  private func runSchedule(from start: DispatchTime, report: WatchReport?) {
    var elapsed = 0.0
    while true {
      let next = schedule.nextChange(after: elapsed)
      if wake.wait(timeout: start + next) == .success { return }
      elapsed = next
      let running = schedule.isWatchRunning(at: elapsed)
      // Under the lock: once stop() has begun, no watch is started and none is reported.
      let stopped = state.withLock { state -> Bool in
        guard !state.stopping else { return true }
        if running {
          if state.watch == nil, let pid = try? spawn("watch", presence: state.presence) { state.watch = pid }
        } else if let pid = state.watch {
          state.watch = nil
          Self.end(pid)
        }
        report?(running)
        return false
      }
      if stopped { return }
    }
  }

  /// Starts the reaper with the read ends of its two pipes; this process keeps the write ends
  /// (close-on-exec, so only the players get the presence one, on purpose).
  private func startReaper() throws(CommandError) {
    guard let lifeline = Self.pipe(), let presence = Self.pipe() else {
      throw .failure("cannot make the demo's pipes: \(String(cString: strerror(errno)))")
    }
    state.withLock {
      $0.lifeline = lifeline.write
      $0.presence = presence.write
    }
    defer {
      close(lifeline.read)
      close(presence.read)
    }
    let pid = try spawn(
      "reaper",
      descriptors: [
        (lifeline.read, DemoReaper.lifelineDescriptor), (presence.read, DemoReaper.presenceDescriptor),
      ])
    state.withLock { $0.reaper = pid }
  }

  /// A close-on-exec pipe, its descriptors above the few a child gets (so that moving them
  /// into place never lands one on another). Made before any other thread of the demo starts a
  /// process, so none inherits the moment before close-on-exec is set (`pipe2` is not
  /// imported).
  private static func pipe() -> (read: Int32, write: Int32)? {
    var ends: [Int32] = [0, 0]
    guard Glibc.pipe(&ends) == 0 else { return nil }
    let moved = ends.map { fcntl($0, F_DUPFD_CLOEXEC, 10) }
    close(ends[0])
    close(ends[1])
    guard moved.allSatisfy({ $0 >= 0 }) else {
      for descriptor in moved where descriptor >= 0 { close(descriptor) }
      return nil
    }
    return (moved[0], moved[1])
  }

  /// Starts a player holding `presence` (the write end of the reaper's presence pipe).
  private func spawn(_ role: String, presence: Int32?) throws(CommandError) -> pid_t {
    try spawn(role, descriptors: presence.map { [($0, DemoReaper.playerPresenceDescriptor)] } ?? [])
  }

  /// Starts `demo-player --role ROLE` over the home with `descriptors` moved into place.
  private func spawn(_ role: String, descriptors: [(from: Int32, to: Int32)]) throws(CommandError) -> pid_t {
    var pid: pid_t = 0
    let arguments = ["wormhole-tui", "demo-player", "--home", home, "--role", role]
    var pointers = arguments.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (from, to) in descriptors { posix_spawn_file_actions_adddup2(&actions, from, to) }
    let spawned = posix_spawn(&pid, "/proc/self/exe", &actions, nil, &pointers, environ)
    guard spawned == 0 else {
      throw .failure("cannot start the demo's \(role) process: \(String(cString: strerror(spawned)))")
    }
    return pid
  }

  /// Ends the schedule and every player, and waits for them, so that nothing is left behind.
  func stop() {
    let runs = state.withLock { state -> Bool in
      state.stopping = true
      return state.scheduleRuns
    }
    if runs {
      wake.signal()
      scheduleEnded.wait()
    }
    let pids = state.withLock { state -> [pid_t] in
      defer {
        state.others = []
        state.watch = nil
        state.scheduleRuns = false
      }
      return state.others + (state.watch.map { [$0] } ?? [])
    }
    Self.end(pids)
    // The players are gone: the reaper removes the home (which the caller would otherwise) and ends.
    let (reaper, pipes) = state.withLock { state -> (pid_t?, [Int32]) in
      defer {
        state.reaper = nil
        state.lifeline = nil
        state.presence = nil
      }
      return (state.reaper, [state.lifeline, state.presence].compactMap { $0 })
    }
    for descriptor in pipes { close(descriptor) }
    if let reaper { Self.wait(for: reaper) }
  }

  private static func end(_ pid: pid_t) { end([pid]) }

  /// Ends `pids` and reaps them: SIGTERM, and SIGKILL to those still running after 5 s, so that
  /// a player that does not end (a stuck one, or one that lost its SIGTERM, as a player just
  /// started did before ``Termination/handle(_:with:)`` awaited its registration) cannot hold
  /// the demo's end for ever.
  private static func end(_ pids: [pid_t]) {
    for pid in pids { kill(pid, SIGTERM) }
    var running = Set(pids)
    let killAfter = DispatchTime.now() + 5
    var killed = false
    while !running.isEmpty {
      for pid in running {
        var status: Int32 = 0
        let reaped = waitpid(pid, &status, WNOHANG)
        if reaped == pid || (reaped < 0 && errno == ECHILD) { running.remove(pid) }
      }
      guard !running.isEmpty else { break }
      if !killed && DispatchTime.now() >= killAfter {
        for pid in running { kill(pid, SIGKILL) }
        killed = true
      }
      usleep(10_000)
    }
  }

  private static func wait(for pid: pid_t) {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  }
}
