import MailboxWatcher
import Synchronization
import TestSupport
import Testing

@testable import DashboardRuntime

/// The watcher source hands every batch to the loop's closure without wrapping it again: a
/// closure kept in a `Mutex` of its own function type gains two reabstraction thunks at each
/// `withLock`, so batch N would run a chain of about 2N calls (and as deep a stack).
@Suite struct WatcherDeliveryTests {
  @Test func theLoopsClosureIsNotWrappedAgainOnEveryBatch() throws {
    let directory = TemporaryDirectory(prefix: "wormhole-delivery")
    defer { directory.remove() }
    let source = try MailboxWatcherSource(roots: [.container(directory.path)])
    defer { source.cancel() }
    let deepest = Mutex<UInt>(0)
    let top = Mutex<UInt>(0)
    source.start { _ in
      var marker = 0
      let here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
      let base = top.withLock { $0 }
      deepest.withLock { $0 = max($0, base > here ? base - here : 0) }
    }
    for _ in 0..<1000 {
      var marker = 0
      let here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
      top.withLock { $0 = here }
      source.delivery.deliver([])
    }
    // Two thunks a batch would be at least 32 KB (16 bytes a frame) by the thousandth.
    #expect(deepest.withLock { $0 } < 16 << 10)
  }
}
