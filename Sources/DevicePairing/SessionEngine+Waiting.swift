import DeviceSession
import Dispatch
import Synchronization

extension SessionEngine {
  /// Sends a live message and waits for its reply: the reply's payload, or `notReachable`
  /// (7007) or `replyTimedOut` (7012). The calling thread reads the reply itself where the link
  /// allows it (``SessionEngine/sendMessageReadingReply(_:identifier:replyTimeout:replyHandler:)``):
  /// what `pass --reply-timeout` through a running device waits with. Not to be called from the
  /// delivery handler or the observer.
  public func sendMessageAndWait(_ payload: [UInt8], identifier: String, replyTimeout: Double)
    throws(SessionError) -> [UInt8]
  {
    let outcome = Mutex<Result<[UInt8], SessionError>?>(nil)
    let answered = DispatchSemaphore(value: 0)
    try sendMessageReadingReply(payload, identifier: identifier, replyTimeout: replyTimeout) { result in
      outcome.withLock { $0 = result }
      answered.signal()
    }
    // Signalled already when this thread read the reply; otherwise by the link's thread or the timer.
    answered.wait()
    guard let result = outcome.withLock({ $0 }) else { throw .notReachable }
    return try result.get()
  }
}
