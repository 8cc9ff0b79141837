import Foundation
import Glibc
import Testing

/// A verb that goes through a `device run` stopped with SIGSTOP (its control socket accepts, but
/// nothing answers) says so at once, with its pid, instead of waiting 30 s for "no answer".
@Suite struct StoppedRunningDeviceTests {
  @Test func aPassOrPushThroughAStoppedDeviceRunSaysItIsStopped() throws {
    let pairs = try PairVerbTests.PairHome()
    let phone = try pairs.device("phone")
    let pid = try #require(try pairs.pid(of: "phone"))
    kill(pid, SIGSTOP)
    defer {
      kill(pid, SIGCONT)
      phone.interrupt()
      _ = phone.finish()
    }
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
