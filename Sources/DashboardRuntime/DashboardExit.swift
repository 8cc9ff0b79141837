/// How a dashboard's loop ended.
public enum DashboardExit: Sendable, Hashable {
  /// The operator quit (`q`, `:q`, Ctrl-C as a key).
  case quit
  /// SIGINT, SIGTERM or SIGHUP arrived, or the terminal went away: the terminal is restored
  /// and the source cancelled; the caller ends the process by this signal, after its clean-ups.
  case interrupted(signal: Int32)
}
