import CMosquitto
import Glibc

/// What wakes a client's own network loop (``NetworkLoop`` with a waker): an eventfd, written
/// once after a batch of packets is queued, instead of the byte libmosquitto writes to its
/// socket pair for every packet (and its loop reads one of per pass).
final class NetworkWaker: Sendable {
  private let pointer: Pointer

  /// The C waker, used from the client's threads and the loop's: its eventfd and atomic flag
  /// are safe to use from any thread.
  private struct Pointer: @unchecked Sendable {
    let value: OpaquePointer
  }

  /// Throws ``MQTTError/operationFailed(_:reason:)`` when no eventfd can be made (the process
  /// is out of file descriptors).
  init() throws(MQTTError) {
    guard let value = cmosquitto_waker_new() else {
      throw .operationFailed("make the network loop's eventfd", reason: String(cString: strerror(errno)))
    }
    pointer = Pointer(value: value)
  }

  deinit { cmosquitto_waker_free(pointer.value) }

  /// Wakes the loop to write what was queued.
  func wake() { cmosquitto_waker_wake(pointer.value) }

  /// Runs the loop on the calling thread until ``stop()`` (0) or a fatal error (its code),
  /// reconnecting on ``MQTTClient/reconnectDelay(failures:limit:)``'s schedule.
  func run(_ client: OpaquePointer, reconnectDelayLimit: UInt32) -> Int32 {
    cmosquitto_loop_woken(client, pointer.value, reconnectDelayLimit)
  }

  /// Tells the loop the broker accepted the connection: the next loss's pauses start afresh.
  func accepted() { cmosquitto_waker_accepted(pointer.value) }

  /// Asks the loop to return once the connection is closed, and wakes it.
  func stop() { cmosquitto_waker_stop(pointer.value) }
}
