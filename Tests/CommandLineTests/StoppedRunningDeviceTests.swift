import Foundation
import Glibc
import Testing

/// A verb that goes through a `device run` stopped with SIGSTOP (its control socket accepts, but
/// nothing answers) says so at once, with its pid, instead of waiting 30 s for "no answer".
@Suite struct StoppedRunningDeviceTests {
  @Test func aPassOrPushThroughAStoppedDeviceRunSaysItIsStopped() throws {
    let pairs = try PairVerbTests.PairHome()
    try pairs.whileStopped("phone") { pid in
      let started = ContinuousClock.now
      let pass = try pairs.pass("session-file", ["doc", "1"])
      #expect(pass.status == 3, "\(pass.errors)")
      #expect(pass.errors.contains("(pid \(pid)) is stopped"), "\(pass.errors)")
      let push = try run(["push", "--device", "p:phone", "-"] + pairs.home, input: #"{"aps":{}}"#)
      #expect(push.status == 3, "\(push.errors)")
      #expect(push.errors.contains("(pid \(pid)) is stopped"), "\(push.errors)")
      #expect(ContinuousClock.now - started < .seconds(10))
    }
  }

  /// A session message to a counterpart stopped with SIGSTOP is not reachable (7007), and the
  /// verb says the counterpart is stopped, with its pid, rather than that it is not running.
  @Test func aSessionMessageToAStoppedCounterpartSaysItIsStopped() throws {
    let pairs = try PairVerbTests.PairHome()
    try pairs.whileStopped("watch") { pid in
      let sent = try pairs.pass("session-message", ["tap", "1"])
      #expect(sent.status == 3, "\(sent.errors)")
      #expect(
        sent.errors.contains("7007") && sent.errors.contains("(pid \(pid)) is stopped"), "\(sent.errors)")
    }
  }
}
