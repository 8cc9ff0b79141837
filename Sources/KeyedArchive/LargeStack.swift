import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs `body` on a fresh thread with a 64 MB stack and waits for it.
///
/// Deeply nested input is decoded and rendered recursively up to the nesting limits; a thread of
/// our own makes that safe whatever thread the caller is on (secondary threads may have as little
/// as 512 KB, and debug builds use several times more stack per level than release builds). The
/// stack is reserved, not committed, so only the pages actually used cost memory. Input that
/// nests shallowly, which is nearly all of it, never comes here.
///
/// On Linux the thread is a joined POSIX thread, so nothing outlives the call (Foundation's
/// `Thread` keeps its closure, and so the result, alive after it finishes). If a thread cannot be
/// started, `body` runs in place.
package func withLargeStack<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Result {
  let box = ResultBox<Result>()
  let work = ThreadWork { box.value = body() }
  #if canImport(Glibc)
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, 64 << 20)
    var thread = pthread_t()
    let context = Unmanaged.passRetained(work).toOpaque()
    let status = pthread_create(
      &thread, &attributes,
      { context in
        guard let context else { return nil }
        Unmanaged<ThreadWork>.fromOpaque(context).takeRetainedValue().run()
        return nil
      }, context)
    if status == 0 {
      pthread_join(thread, nil)
    } else {
      Unmanaged<ThreadWork>.fromOpaque(context).release()
      work.run()
    }
  #else
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      work.run()
      done.signal()
    }
    thread.stackSize = 64 << 20
    thread.start()
    done.wait()
  #endif
  let value = box.value ?? body()
  box.value = nil
  return value
}

/// The closure a worker thread runs.
private final class ThreadWork: @unchecked Sendable {
  let run: () -> Void
  init(_ run: @escaping () -> Void) { self.run = run }
}

/// Carries a result from the worker thread; joining (or the semaphore) orders the write before
/// the read.
private final class ResultBox<Value>: @unchecked Sendable {
  var value: Value?
}

/// How deep in-place recursion may go before the work moves to a large-stack thread. Each level
/// costs a few kilobytes of stack in debug builds, so this stays well inside 512 KB.
package let inPlaceNestingLimit = 48
