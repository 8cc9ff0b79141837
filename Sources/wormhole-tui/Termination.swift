import Dispatch
import Glibc
import Synchronization
import TerminalBackend

/// How the process ends: once, from whichever thread gets there first, after the clean-ups
/// registered so far.
///
/// A follower's output can fail on a listener thread while the main thread waits; both may try
/// to end the process, and `exit` must not run twice at once. The first caller runs the
/// clean-ups (such as removing `demo`'s temporary home) and ends the process; a later caller
/// waits for that.
enum Termination {
  private struct State {
    var ending = false
    var cleanups: [@Sendable () -> Void] = []
  }

  private static let state = Mutex(State())

  /// Runs `cleanup` when the process ends through ``exit(_:)`` or ``endForBrokenPipe()``.
  static func onExit(_ cleanup: @escaping @Sendable () -> Void) {
    state.withLock { $0.cleanups.append(cleanup) }
  }

  /// Ends the process with `code`, saying `message` first, without the clean-ups: for a run whose
  /// files are no longer its own (a device whose pair was removed and made again), where each
  /// clean-up would remove or write a file by its path that may now be another run's. The kernel
  /// closes what the process holds. Returns, saying nothing, when the process is already ending:
  /// its clean-ups (releasing a run lock) may be what made the files look gone.
  static func abandonFiles(saying message: String, _ code: ExitCode) {
    guard claimEnd() != nil else { return }
    diagnose(message)
    fflush(nil)
    Glibc._exit(code.rawValue)
  }

  /// Ends the process with `code`.
  static func exit(_ code: ExitCode) -> Never {
    runCleanups()
    Glibc.exit(code.rawValue)
  }

  /// Ends the process as a conventional tool ends when the reader of its output has gone
  /// (`| head -1`): quietly, killed by `SIGPIPE`, so that a shell sees status 141 as it does for
  /// `cat`. `SIGPIPE` is ignored while running so that such a write returns `EPIPE` here, after
  /// the clean-ups, instead of killing the process in the middle of something.
  static func endForBrokenPipe() -> Never { end(bySignal: SIGPIPE) }

  /// Ends the process as `number` would have ended it (the dashboard after SIGINT, SIGTERM or
  /// SIGHUP, once the terminal is restored), after the clean-ups.
  static func end(bySignal number: Int32) -> Never {
    runCleanups()
    SignalExit.reraise(number)
  }

  /// Handles `signals` (SIGINT and SIGTERM by default) with `handler` on a dispatch source
  /// instead of their default action, for as long as the returned sources are kept. By default
  /// the handler ends the process cleanly (exit 0, after the clean-ups).
  ///
  /// Returns once the sources are registered, so every such signal sent after it reaches
  /// `handler`. Until then the default action applies (the process ends as asked, without its
  /// clean-ups). The signals are not set to SIG_IGN first, as one does on Darwin: on Linux
  /// libdispatch installs its own handler only when it registers a source, on its own thread
  /// after `resume()`, and a signal that came in between was ignored and lost (a `device run`
  /// sent SIGTERM 10 ms after its start ran on).
  static func handle(
    _ signals: [Int32] = [SIGINT, SIGTERM], with handler: @escaping @Sendable () -> Void = { exit(.success) }
  ) -> [any DispatchSourceSignal] {
    signals.map { number in
      let registered = DispatchSemaphore(value: 0)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler(handler: handler)
      source.setRegistrationHandler { registered.signal() }
      source.resume()
      // A bound only: registration takes microseconds.
      _ = registered.wait(timeout: .now() + 5)
      return source
    }
  }

  /// Claims the end of the process: the clean-ups registered, or `nil` when another caller has
  /// claimed it already.
  private static func claimEnd() -> [@Sendable () -> Void]? {
    state.withLock { state in
      guard !state.ending else { return nil }
      state.ending = true
      return state.cleanups
    }
  }

  /// Claims the end of the process and runs the clean-ups; a second caller waits for the first
  /// to end the process.
  private static func runCleanups() {
    guard let cleanups = claimEnd() else {
      while true { pause() }
    }
    for cleanup in cleanups.reversed() { cleanup() }
  }
}
