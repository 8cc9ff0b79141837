import DeviceSession
import Testing

@testable import DevicePairing

/// Input of unknown sender that a link refused (``LinkEvent/refusedInput(_:)``) reaches the
/// session as such: a failure that says where it came and that its sender is unknown, never a
/// frame from the counterpart, and no denial of the link (the link, and its report, run on).
@Suite struct RefusedInputTests {
  static let input = RefusedInput(
    "a message on wormhole/v1/pairs/pair/phone/transfer", reason: "not a device frame: bad magic")

  @Test func refusedInputIsSaidAsWhatItIsAndTheSessionGoesOn() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let link = ScriptedLink()
    let address = try makePair(home).watch
    let device = try SimulatedDevice(
      store: home.store, address: address, applicationGroup: "group.test", link: link)
    defer { device.stop() }
    let deliveries = Collector<SessionDelivery>()
    device.session.setDeliveryHandler { deliveries.append($0) }
    try device.session.activate()
    link.deliver(.reachabilityChanged(true))
    link.deliver(.refusedInput(Self.input))
    let failures = deliveries.values.compactMap { if case .failure(let error) = $0 { error } else { nil } }
    #expect(failures == [.refusedInput(Self.input)])
    #expect(
      failures.map(\.description) == [
        "a message on wormhole/v1/pairs/pair/phone/transfer was refused: not a device frame: bad magic "
          + "(its sender is unknown)"
      ])
    #expect(failures.first?.code == nil)
    // Not the link's denial: the session stays reachable, and the report says nothing of it.
    #expect(device.session.isReachable && device.session.linkDenial == nil)
    _ = try device.session.sendMessage(bytes("x"), identifier: "ping")
    #expect(link.sent.contains { $0.kind == .message })
    let report = try #require(ReachabilityReport.read(device.directory))
    #expect(report.isReachable && report.denial == nil)
  }

  @Test func refusedInputSurvivesTheControlSocketsAnswer() throws {
    let answer = ControlAnswer.failed(.refusedInput(Self.input))
    #expect(try ControlAnswer(answer.frame(sender: .phone)) == answer)
    // Cut inside its second text: refused, not read as something else.
    var frame = answer.frame(sender: .phone)
    frame.payload.removeLast(3)
    #expect(throws: FrameError.self) { try ControlAnswer(frame) }
  }
}
