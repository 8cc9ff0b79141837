import DevicePairing
import DeviceSession
import Dispatch
import Foundation
import Synchronization
import Testing

/// A caller that waits for a reply while the link still holds frames the socket would not take
/// (a stream of messages sent faster than the counterpart reads): its message goes out behind
/// them, and the reply comes. Issue 13's "pairs: replies failed": the link's thread flushed once
/// on a one-shot `EPOLLOUT`, took the registration for still armed, and the rest of the backlog,
/// the caller's message with it, waited until the caller's 10 s timeout ran out.
@Suite struct BackloggedReplyTests {
  @Test func aReplyAwaitedBehindABacklogTheSocketWouldNotTakeComes() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch, activate: false)
    defer { phone.stop(); watch.stop() }
    // The watch stops reading (its link's thread is held in the handler) on the first message
    // of a round, until the phone has sent the message it waits a reply for.
    let gate = DispatchSemaphore(value: 0)
    let held = Mutex(false)
    let session = watch.session
    session.setDeliveryHandler { delivery in
      guard case .message(let message) = delivery else { return }
      if message.identifier == "echo" {
        try? session.reply(to: message, with: message.payload)
      } else if held.withLock({ state in
        defer { state = false }
        return state
      }) {
        gate.wait()
      }
    }
    try session.activate()
    #expect(phone.waitReachable())
    phone.session.setObserver { event in
      if case .messageSent(identifier: "echo", _, _, _, _) = event { gate.signal() }
    }
    let payload = [UInt8](repeating: 1, count: 16 << 10)
    for round in 0..<12 {
      held.withLock { $0 = true }
      // 4 MiB: far more than a Unix socket's buffer, so the link queues most of it.
      for _ in 0..<256 { try phone.session.sendMessage(payload, identifier: "stream") }
      let started = ContinuousClock.now
      let reply = try phone.session.sendMessageAndWait(bytes("\(round)"), identifier: "echo", replyTimeout: 5)
      #expect(reply == bytes("\(round)"), "round \(round)")
      #expect(ContinuousClock.now - started < .seconds(5), "round \(round)")
    }
  }
}
