import DeviceSession
import Testing

@testable import DevicePairing

/// A link's own failures (``LinkEvent/denied(_:)``: taken over by another run of the role, a
/// publication the broker refused) reach the session, the control socket and the device's report
/// as such, not as a frame from the counterpart that was refused.
@Suite struct LinkDenialTests {
  static let takeover = LinkDenial(
    .takenOver, reason: "another watch of pair took its place on the broker: this watch no longer connects")
  static let refusal = LinkDenial(
    .refused, reason: "the broker did not accept the publication on wormhole/v1/pairs/pair/watch/presence")

  /// A watch of a fresh pair, running (its report kept) over a link the test scripts.
  struct Fixture {
    let home = TemporaryHome()
    let link = ScriptedLink()
    let deliveries = Collector<SessionDelivery>()
    let device: SimulatedDevice
    let address: DeviceAddress

    init() throws {
      address = try makePair(home).watch
      device = try SimulatedDevice(
        store: home.store, address: address, applicationGroup: "group.test", link: link)
      let deliveries = deliveries
      device.session.setDeliveryHandler { deliveries.append($0) }
      try device.session.activate()
      link.deliver(.reachabilityChanged(true))
    }

    var session: SessionEngine { device.session }

    var failures: [SessionError] {
      deliveries.values.compactMap { if case .failure(let error) = $0 { return error } else { return nil } }
    }

    /// The device's report, which `pair list` and the dashboard read.
    var report: ReachabilityReport? { ReachabilityReport.read(device.directory) }

    func remove() {
      device.stop()
      home.remove()
    }
  }

  @Test func aTakeoverIsSaidAsTheLinksOwnAndMessagesFailWithItInsteadOfNotReachable() throws {
    let fixture = try Fixture()
    defer { fixture.remove() }
    fixture.link.deliver(.reachabilityChanged(false))
    fixture.link.deliver(.denied(Self.takeover))
    #expect(fixture.failures == [.linkDenied(Self.takeover)])
    let said = fixture.failures.map(\.description)
    #expect(said == ["this device was taken over: " + Self.takeover.reason], "\(said)")
    #expect(!said.contains { $0.contains("a frame from the counterpart") })
    #expect(fixture.session.linkDenial == Self.takeover)
    #expect(throws: SessionError.linkDenied(Self.takeover)) {
      try fixture.session.sendMessage(bytes("x"), identifier: "ping")
    }
    // The report says it, for pair list and the dashboard; a later refusal does not replace it.
    fixture.link.deliver(.denied(Self.refusal))
    fixture.link.deliver(.reachabilityChanged(true))
    let report = try #require(fixture.report)
    #expect(report.denial == Self.takeover)
  }

  @Test func aRefusalIsSaidAsTheLinksOwnAndTheLinkRunsOn() throws {
    let fixture = try Fixture()
    defer { fixture.remove() }
    fixture.link.deliver(.denied(Self.refusal))
    #expect(fixture.failures.map(\.description) == ["this device's link was refused: " + Self.refusal.reason])
    #expect(fixture.session.linkDenial == nil)
    // Still reachable: a message goes.
    _ = try fixture.session.sendMessage(bytes("x"), identifier: "ping")
    #expect(fixture.link.sent.contains { $0.kind == .message })
    let report = try #require(fixture.report)
    #expect(report.denial == Self.refusal && report.isReachable)
    // Reachable again after it: the refusal is over, in the report too.
    fixture.link.deliver(.reachabilityChanged(false))
    #expect(fixture.report?.denial == Self.refusal)
    fixture.link.deliver(.reachabilityChanged(true))
    #expect(fixture.report?.denial == nil)
  }

  @Test(arguments: [takeover, refusal])
  func aDenialSurvivesTheControlSocketsAnswer(denial: LinkDenial) throws {
    let answer = ControlAnswer.failed(.linkDenied(denial))
    #expect(try ControlAnswer(answer.frame(sender: .watch)) == answer)
    var frame = answer.frame(sender: .watch)
    frame.payload[8] = 2  // the kind's u64, big-endian: its last byte
    #expect(throws: FrameError.self) { try ControlAnswer(frame) }
  }

  @Test func aReportKeepsItsDenialOnOneLineOfAtMostTheLimit() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let directory = home.store.directory(for: try makePair(home).phone)
    let long = LinkDenial(.refused, reason: "first\nsecond " + String(repeating: "é", count: 2000))
    try ReachabilityReport(pid: 42, isReachable: false, time: 7, denial: long).write(to: directory)
    let read = try #require(ReachabilityReport.read(directory))
    let reason = try #require(read.denial?.reason)
    #expect(reason.hasPrefix("first second éé") && reason.utf8.count <= ReachabilityReport.reasonLimit)
    #expect(read.pid == 42 && read.time == 7 && read.denial?.kind == .refused)
    // A report without one (an earlier run's format) reads as before.
    try ReachabilityReport(pid: 42, isReachable: true, time: 8).write(to: directory)
    #expect(ReachabilityReport.read(directory) == ReachabilityReport(pid: 42, isReachable: true, time: 8))
  }
}
