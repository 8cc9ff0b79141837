import DeviceSession
import Testing

@testable import DevicePairing

/// The control socket's requests and answers survive their frames, and what is not one is refused.
@Suite struct ControlProtocolTests {
  @Test(arguments: [
    ControlRequest.message(identifier: "m", archive: [1, 2], replyTimeout: nil),
    .message(identifier: "m", archive: [], replyTimeout: 0.25),
    .context(identifier: "k", archive: [3], deliveringIdentical: true),
    .context(identifier: "k", archive: [3], deliveringIdentical: false),
    .removal(identifiers: ["a", "b"]), .removal(identifiers: nil), .transfer(identifier: "doc", archive: [4]),
    .cancel(id: 42),
  ])
  func requestsSurviveTheirFrames(request: ControlRequest) throws {
    let bytes = try FrameCodec().encode(request.frame(sender: .watch))
    var reader = FrameReader()
    reader.append(bytes)
    let frame = try #require(try reader.next())
    #expect(frame.sender == .watch)
    #expect(ControlRequest(frame) == request)
  }

  @Test(arguments: [
    ControlAnswer.message(reply: nil), .message(reply: [9, 9]), .context(.unchanged, stored: false),
    .context(.sent(version: 7), stored: true), .context(.queued(version: 3), stored: false),
    .transfer(id: 5, reachable: true, stored: false), .cancelled, .failed(.notActivated),
    .failed(.notReachable),
    .failed(.payloadTooLarge(bytes: 10, limit: 5)), .failed(.replyTimedOut(seconds: 0.2)),
    .failed(.transferNotFound(3)), .failed(.transferAlreadySent(4)),
    .failed(.invalidIdentifier("a\u{1B}b", reason: "it has an escape")), .failed(.storage("disk full")),
    .failed(.linkUnavailable("no socket")), .failed(.refusedFrame("garbage")),
  ])
  func answersSurviveTheirFrames(answer: ControlAnswer) throws {
    #expect(try ControlAnswer(answer.frame(sender: .phone)) == answer)
  }

  @Test func framesThatAreNoAnswerAreRefused() {
    var frame = ControlAnswer.context(.sent(version: 1), stored: true).frame(sender: .phone)
    frame.payload.append(0)
    #expect(throws: FrameError.self) { try ControlAnswer(frame) }
    frame.payload = [7]
    #expect(throws: FrameError.self) { try ControlAnswer(frame) }
    frame.sequence = 99
    #expect(throws: FrameError.self) { try ControlAnswer(frame) }
    #expect(throws: FrameError.self) {
      try ControlAnswer(DeviceFrame(kind: .message, sender: .phone, time: 0))
    }
    #expect(ControlRequest(DeviceFrame(kind: .reply, sender: .phone, time: 0)) == nil)
    #expect(
      ControlRequest(DeviceFrame(kind: .contextAcknowledgement, sender: .phone, time: 0, payload: [1])) == nil
    )
  }

  @Test func aRemovalBeforeActivationIs7004() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone, activate: false)
    defer { phone.stop() }
    #expect(throws: SessionError.notActivated) { try phone.session.removeFromApplicationContext(["k"]) }
  }
}
