/// Why the terminal could not be started, said so that it can be fixed.
public enum TerminalError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Neither `/dev/tty` nor standard input and output are a terminal.
  case noTerminal
  /// ncurses has no description for `TERM` (or `TERM` is not set).
  case unknownTerminalType(String?)
  /// A system call failed while setting the terminal up.
  case setupFailed(call: String, errno: Int32)
  /// `start()` was called while this or another `Terminal` is running.
  case alreadyStarted

  public var description: String {
    switch self {
    case .noTerminal:
      return "no terminal to draw on: run it in a terminal, or use `snapshot` or `dump` for text output"
    case .unknownTerminalType(let name?):
      return "TERM=\(name) is not a terminal type ncurses knows: set TERM to one that `infocmp` lists "
        + "(for example xterm-256color), or install ncurses-term"
    case .unknownTerminalType(nil):
      return "TERM is not set: set it to your terminal's type (for example xterm-256color)"
    case .setupFailed(let call, let code):
      return "could not set the terminal up: \(call) failed with errno \(code)"
    case .alreadyStarted:
      return "the terminal is already started: stop it before starting another"
    }
  }
}
