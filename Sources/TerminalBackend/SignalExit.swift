import Glibc

/// Ending the process as a signal would have ended it, once whatever the handler had to put
/// back (the terminal, temporary files) is back.
public enum SignalExit {
  /// Ends the process by `signal` with its default action, so that the parent sees the signal
  /// (a shell's status 128 + N) as if no handler had run: the default action restored, the
  /// signal unblocked for this thread, raised, and `_exit(128 + signal)` should it not end the
  /// process.
  public static func reraise(_ signal: Int32) -> Never {
    Glibc.signal(signal, SIG_DFL)
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, signal)
    // Some threads (Dispatch's, on some systems) block signals: deliver it to this one.
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    raise(signal)
    _exit(128 + signal)
  }
}
