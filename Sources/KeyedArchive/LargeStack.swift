import Foundation

/// Runs `body` on a fresh thread with a 64 MB stack and waits for it.
///
/// Deeply nested input is decoded and rendered recursively up to the nesting limits; a thread of
/// our own makes that safe whatever thread the caller is on (secondary threads may have as little
/// as 512 KB, and debug builds use several times more stack per level than release builds). The
/// stack is reserved, not committed, so only the pages actually used cost memory. Small inputs,
/// which cannot nest deeply, skip the thread and run in place.
func withLargeStack<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Result {
  let box = ResultBox<Result>()
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    box.value = body()
    done.signal()
  }
  thread.stackSize = 64 << 20
  thread.start()
  done.wait()
  guard let value = box.value else { return body() }
  return value
}

/// Carries a result from the worker thread; the semaphore orders the write before the read.
private final class ResultBox<Value>: @unchecked Sendable {
  var value: Value?
}

/// How deep in-place recursion may go before the work moves to a large-stack thread. Each level
/// costs a few kilobytes of stack in debug builds, so this stays well inside 512 KB.
let inPlaceNestingLimit = 48
