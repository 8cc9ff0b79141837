import Foundation
import Glibc
import TestSupport

/// The built `terminal-backend-check`, next to the test bundle in SwiftPM's build directory.
let checkExecutable: String = {
  let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  return me.deletingLastPathComponent().appendingPathComponent("terminal-backend-check").path
}()

extension TmuxPane {
  /// The pid `terminal-backend-check` wrote to `pid`, once it is running.
  func checkProcess() -> pid_t? {
    var pid: pid_t?
    _ = waitUntil {
      let text = (try? String(contentsOfFile: path("pid"), encoding: .utf8)) ?? ""
      pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
      return pid != nil
    }
    return pid
  }
}
