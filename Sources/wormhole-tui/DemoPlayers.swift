import Dispatch
import Foundation
import Glibc
import Synchronization

/// The demo's simulated processes, children of this program running the hidden `demo-player`
/// verb: an app and its extension in the home's application group, and the pair's phone and
/// watch (``DemoDevicePlayer``). Each ends with its parent, even a parent killed with SIGKILL.
///
/// The watch is stopped and started again as ``DemoSchedule`` says: a process that ends (its
/// link closes, so the phone sees it unreachable at once) and a new one that activates and is
/// handed what waited for it.
final class DemoPlayers: Sendable {
  /// Why a watch change is reported: it stopped (`false`) or runs again (`true`).
  typealias WatchReport = @Sendable (_ running: Bool) -> Void

  private let home: String
  private let schedule: DemoSchedule
  private let state = Mutex(State())
  /// Wakes the schedule's thread early, when stopping.
  private let wake = DispatchSemaphore(value: 0)
  /// Signalled by the schedule's thread as it ends.
  private let scheduleEnded = DispatchSemaphore(value: 0)

  private struct State {
    var others: [pid_t] = []
    var watch: pid_t?
    var stopping = false
    var scheduleRuns = false
  }

  init(home: String, schedule: DemoSchedule = .standard) {
    self.home = home
    self.schedule = schedule
  }

  /// Starts the app, the extension, the phone and the watch, and the watch's schedule;
  /// `report` hears each time the watch stops or returns.
  func start(reporting report: WatchReport? = nil) throws(CommandError) {
    for role in ["app", "extension", "phone"] {
      let pid = try spawn(role)
      state.withLock { $0.others.append(pid) }
    }
    let watch = try spawn("watch")
    state.withLock {
      $0.watch = watch
      $0.scheduleRuns = true
    }
    let started = DispatchTime.now()
    Thread.detachNewThread { [self] in
      runSchedule(from: started, report: report)
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
          if state.watch == nil, let pid = try? spawn("watch") { state.watch = pid }
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

  /// Starts `demo-player --role ROLE` over the home.
  private func spawn(_ role: String) throws(CommandError) -> pid_t {
    var pid: pid_t = 0
    let arguments = ["wormhole-tui", "demo-player", "--home", home, "--role", role]
    var pointers = arguments.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    let spawned = posix_spawn(&pid, "/proc/self/exe", nil, nil, &pointers, environ)
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
    for pid in pids { kill(pid, SIGTERM) }
    for pid in pids { Self.wait(for: pid) }
  }

  private static func end(_ pid: pid_t) {
    kill(pid, SIGTERM)
    wait(for: pid)
  }

  private static func wait(for pid: pid_t) {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  }
}
