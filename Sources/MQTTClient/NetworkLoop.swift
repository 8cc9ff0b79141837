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
/// and the client never reconnects. Here each return is reported (`ended`) and the thread
/// reconnects itself on the schedule libmosquitto's loop keeps
/// (``MQTTClient/reconnectDelay(failures:limit:)``; `mosquitto_loop_forever`, started without a
/// connection, would sleep its own second first), then runs the loop again.
///
/// With a ``NetworkWaker`` the loop is the client's own (`cmosquitto_loop_woken`, the same
/// reconnections): woken once per batch that the waker is told of, it writes the batch in one
/// pass, corked.
final class NetworkLoop: Sendable {
  private let pointer: Pointer
  private let waker: NetworkWaker?
  private let reconnectDelayLimit: UInt32
  private let acceptances: @Sendable () -> Int
  private let ended: @Sendable (Int32) -> Void
  private let stopping = Mutex(false)
  private let wake = DispatchSemaphore(value: 0)
  private let finished = DispatchSemaphore(value: 0)

  /// The libmosquitto object, used from this thread and the client's: libmosquitto locks it
  /// itself in threaded mode (`mosquitto_threaded_set`).
  private struct Pointer: @unchecked Sendable {
    let value: OpaquePointer
  }

  /// - Parameters:
  ///   - reconnectDelayLimit: The longest pause between two attempts to reconnect (seconds).
  ///   - acceptances: How many connections the broker has accepted so far: when it grew since
  ///     the last attempt, the pauses start again from the first.
  init(
    _ pointer: OpaquePointer, waker: NetworkWaker? = nil, reconnectDelayLimit: UInt32,
    acceptances: @escaping @Sendable () -> Int, ended: @escaping @Sendable (Int32) -> Void
  ) {
    self.pointer = Pointer(value: pointer)
    self.waker = waker
    self.reconnectDelayLimit = reconnectDelayLimit
    self.acceptances = acceptances
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
    var failures: UInt32 = 0
    var accepted = acceptances()
    while !stopping.withLock({ $0 }) {
      let code =
        waker?.run(pointer.value, reconnectDelayLimit: reconnectDelayLimit)
        ?? cmosquitto_loop_forever(pointer.value, -1, 1)
      if stopping.withLock({ $0 }) { break }
      ended(code)
      // Reconnect on the schedule: a TLS handshake that fails makes the loop return again,
      // one more failure; the broker's acceptance starts the pauses afresh.
      while !stopping.withLock({ $0 }) {
        let now = acceptances()
        if now != accepted {
          accepted = now
          failures = 0
        }
        failures &+= failures < .max ? 1 : 0
        let pause = MQTTClient.reconnectDelay(failures: failures, limit: reconnectDelayLimit)
        _ = wake.wait(timeout: .now() + .seconds(Int(pause)))
        if stopping.withLock({ $0 }) { break }
        if cmosquitto_reconnect(pointer.value) == CMOSQ_ERR_SUCCESS { break }
      }
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
