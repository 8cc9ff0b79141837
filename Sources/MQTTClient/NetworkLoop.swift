import CMosquitto
import Dispatch
import Synchronization
import SystemThreads

/// libmosquitto's network loop (`mosquitto_loop_forever`) on a thread of its own, started again
/// whenever it returns by itself.
///
/// `mosquitto_loop_forever` reconnects by itself after most failures, but returns after a TLS
/// error, and a TLS connection's loss (the broker restarted) and a failed TLS handshake on
/// reconnecting are TLS errors: the thread of `mosquitto_loop_start` then ends without a word,
/// and the client never reconnects. Here each return is reported (`ended`) and the loop runs
/// again after a pause (1 s, doubling to 30 s), which reconnects.
///
/// With a ``NetworkWaker`` the loop is the client's own (`cmosquitto_loop_woken`, the same
/// reconnections): woken once per batch that the waker is told of, it writes the batch in one
/// pass, corked.
final class NetworkLoop: Sendable {
  private let pointer: Pointer
  private let waker: NetworkWaker?
  private let ended: @Sendable (Int32) -> Void
  private let stopping = Mutex(false)
  private let wake = DispatchSemaphore(value: 0)
  private let finished = DispatchSemaphore(value: 0)

  /// The libmosquitto object, used from this thread and the client's: libmosquitto locks it
  /// itself in threaded mode (`mosquitto_threaded_set`).
  private struct Pointer: @unchecked Sendable {
    let value: OpaquePointer
  }

  init(_ pointer: OpaquePointer, waker: NetworkWaker? = nil, ended: @escaping @Sendable (Int32) -> Void) {
    self.pointer = Pointer(value: pointer)
    self.waker = waker
    self.ended = ended
  }

  /// Starts the thread: 0, or libmosquitto's or pthread's error code.
  func start() -> Int32 {
    let threaded = cmosquitto_threaded_set(pointer.value, true)
    guard threaded == CMOSQ_ERR_SUCCESS else { return threaded }
    // The thread holds the loop until `run` returns.
    guard SystemThread.detach({ self.run() }) else { return CMOSQ_ERR_ERRNO }
    return CMOSQ_ERR_SUCCESS
  }

  private func run() {
    var pause = 1
    while !stopping.withLock({ $0 }) {
      let began = ContinuousClock.now
      let code = waker?.run(pointer.value) ?? cmosquitto_loop_forever(pointer.value, -1, 1)
      if stopping.withLock({ $0 }) { break }
      ended(code)
      // A loop that ran a while had connected: start the pauses afresh.
      if ContinuousClock.now - began > .seconds(30) { pause = 1 }
      _ = wake.wait(timeout: .now() + .seconds(pause))
      pause = min(pause * 2, 30)
    }
    finished.signal()
  }

  /// Disconnects and waits for the thread to end. Called once, not from the thread itself.
  func stop() {
    stopping.withLock { $0 = true }
    _ = cmosquitto_disconnect(pointer.value)
    waker?.stop()
    wake.signal()
    finished.wait()
  }
}
