import Foundation
import Glibc

/// `demo-player --role reaper`: removes the demo's home once the demo and all its players are
/// gone, however they went, SIGKILL included, when nothing else could.
///
/// It learns both by pipes, not by polling: descriptor ``lifelineDescriptor`` is the read end of
/// a pipe whose only writer is the demo (end of file: the demo has ended or is stopping), and
/// ``presenceDescriptor`` the read end of one whose write end every player holds (end of file:
/// the last player has ended, so nothing writes into the home any more). It ignores the
/// signals a terminal sends the whole process group (Ctrl-C, a hang-up), so that it outlives
/// them to clean up; the demo waits for it on every clean way out.
enum DemoReaper {
  /// The reaper's descriptor for the demo's lifeline.
  static let lifelineDescriptor: Int32 = 3
  /// The reaper's descriptor for the players' presence.
  static let presenceDescriptor: Int32 = 4
  /// The descriptor each player holds the presence pipe's write end on.
  static let playerPresenceDescriptor: Int32 = 3

  static func run(home: String) -> ExitCode {
    for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { signal(number, SIG_IGN) }
    waitForEndOfFile(lifelineDescriptor)
    waitForEndOfFile(presenceDescriptor)
    var status = stat()
    if lstat(home, &status) == 0 { try? FileManager.default.removeItem(atPath: home) }
    return .success
  }

  /// Reads `descriptor` until every writer has closed it (or it cannot be read).
  private static func waitForEndOfFile(_ descriptor: Int32) {
    var buffer = [UInt8](repeating: 0, count: 64)
    while true {
      let count = read(descriptor, &buffer, buffer.count)
      if count > 0 || (count < 0 && errno == EINTR) { continue }
      return
    }
  }
}
