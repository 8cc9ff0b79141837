import DevicePairing
import DeviceSession
import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

/// `sendMessageAndWait` over the real Unix-socket link: the waiting caller reads its reply (and
/// whatever arrives before it) on its own thread, and gives the reading back to the link's thread.
@Suite struct WaitingCallerTests {
  /// Records each delivery of a device with whether it was made on the thread given.
  final class ThreadedDeliveries: Sendable {
    let values = Collector<(SessionDelivery, onCaller: Bool)>()
    private let caller = Mutex<pthread_t?>(nil)

    func setCaller(_ thread: pthread_t?) { caller.withLock { $0 = thread } }

    func append(_ delivery: SessionDelivery) {
      let onCaller = caller.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
      values.append((delivery, onCaller))
    }

    var messages: [(payload: String, onCaller: Bool)] {
      values.values.compactMap { delivery, onCaller in
        guard case .message(let message) = delivery else { return nil }
        return (String(decoding: message.payload, as: UTF8.self), onCaller)
      }
    }
  }

  /// A watch that answers `echo` by first sending `before-<payload>` and then replying `re:<payload>`.
  private func echoingWatch(_ home: TemporaryHome, _ pair: Pair) throws -> DeviceUnderTest {
    let watch = try DeviceUnderTest(home.store, pair.watch, activate: false)
    let session = watch.session
    let deliveries = watch.deliveries
    session.setDeliveryHandler { delivery in
      deliveries.append(delivery)
      guard case .message(let message) = delivery, message.identifier == "echo" else { return }
      _ = try? session.sendMessage(bytes("before-") + message.payload, identifier: "note")
      try? session.reply(to: message, with: bytes("re:") + message.payload)
    }
    try session.activate()
    return watch
  }

  @Test func theReplyAndWhatCameBeforeItAreReadInOrderOnTheWaitingThread() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try echoingWatch(home, pair)
    defer { phone.stop(); watch.stop() }
    #expect(phone.waitReachable())
    let recorded = ThreadedDeliveries()
    phone.session.setDeliveryHandler { recorded.append($0) }
    recorded.setCaller(pthread_self())
    for index in 0..<50 {
      let reply = try phone.session.sendMessageAndWait(
        bytes("\(index)"), identifier: "echo", replyTimeout: 10)
      #expect(String(decoding: reply, as: UTF8.self) == "re:\(index)")
      // The message the watch sent before its reply was delivered before the reply came back.
      #expect(recorded.messages.last?.payload == "before-\(index)")
    }
    recorded.setCaller(nil)
    #expect(recorded.messages.map(\.payload) == (0..<50).map { "before-\($0)" })
    // Read by the waiting thread (the link's thread reads only when it was busy at that moment).
    #expect(recorded.messages.count { $0.onCaller } > 25)
    // And the link's thread reads again once the caller is done: a message with no one waiting.
    try watch.session.sendMessage(bytes("later"), identifier: "note")
    let later = recorded.values.wait { values in
      values.contains {
        if case .message(let message) = $0.0 { message.payload == bytes("later") } else { false }
      }
    }
    #expect(later.last.map { !$0.onCaller } == true)
  }

  @Test func aCounterpartThatLeavesEndsTheWaitAtOnceNotReachable7007() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch)  // never replies
    defer { phone.stop() }
    #expect(phone.waitReachable() && watch.waitReachable())
    DispatchQueue.global().async {
      _ = watch.deliveries.wait { $0.contains { if case .message = $0 { true } else { false } } }
      watch.stop()
    }
    let start = ContinuousClock.now
    #expect(throws: SessionError.notReachable) {
      _ = try phone.session.sendMessageAndWait(bytes("hi"), identifier: "echo", replyTimeout: 30)
    }
    #expect(ContinuousClock.now - start < .seconds(10))
    #expect(!phone.session.isReachable)
  }

  @Test func noReplyInTimeIsReplyTimedOut7012AndTheLinkReadsOnAfterwards() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch)  // never replies
    defer { phone.stop(); watch.stop() }
    #expect(phone.waitReachable() && watch.waitReachable())
    #expect(throws: SessionError.replyTimedOut(seconds: 0.2)) {
      _ = try phone.session.sendMessageAndWait(bytes("hi"), identifier: "echo", replyTimeout: 0.2)
    }
    try watch.session.sendMessage(bytes("after"), identifier: "note")
    phone.deliveries.wait { _ in !phone.messages.isEmpty }
    #expect(phone.messages.map(\.payload) == [bytes("after")])
  }

  @Test func stoppingTheDeviceWhileItsCallerWaitsEndsTheWait() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch)  // never replies
    defer { watch.stop() }
    #expect(phone.waitReachable() && watch.waitReachable())
    let outcome = Collector<Result<[UInt8], SessionError>>()
    let session = phone.session
    DispatchQueue.global().async {
      do throws(SessionError) {
        outcome.append(
          .success(try session.sendMessageAndWait(bytes("hi"), identifier: "echo", replyTimeout: 30)))
      } catch {
        outcome.append(.failure(error))
      }
    }
    _ = watch.deliveries.wait { $0.contains { if case .message = $0 { true } else { false } } }
    let start = ContinuousClock.now
    phone.stop()
    #expect(ContinuousClock.now - start < .seconds(10))
    #expect(outcome.wait { !$0.isEmpty } == [.failure(.notReachable)])
  }
}
