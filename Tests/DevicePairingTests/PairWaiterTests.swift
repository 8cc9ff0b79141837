import DevicePairing
import DeviceSession
import Dispatch
import Foundation
import Testing

/// ``PairWaiter``: a device up is one running, not stopped, with its session activated; the
/// waiter hears it come up, and a pair deleted under it.
@Suite struct PairWaiterTests {
  /// Runs `waiter.wait(seconds:)` on a thread of its own; its result comes in `results`, and
  /// `waiting` once it has looked and begun to wait.
  final class BackgroundWait: Sendable {
    let results = Collector<Result<PairWaiter.Outcome, PairStoreError>>()
    let waiting = Collector<PairStatus>()

    init(_ waiter: PairWaiter, seconds: Double) {
      let results = results
      let waiting = waiting
      Thread.detachNewThread {
        do throws(PairStoreError) {
          results.append(.success(try waiter.wait(seconds: seconds) { waiting.append($0) }))
        } catch {
          results.append(.failure(error))
        }
      }
    }

    func result() -> Result<PairWaiter.Outcome, PairStoreError>? {
      results.wait(seconds: 20) { !$0.isEmpty }.first
    }
  }

  @Test func aDeviceIsUpOnlyOnceItsSessionActivated() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let waiter = PairWaiter(store: home.store, pair: pair.name, goal: .activated(.watch))
    let notRunning = try waiter.wait(seconds: 0)
    #expect(!notRunning.isMet && !notRunning.status.watch.isRunning)
    let watch = try DeviceUnderTest(home.store, pair.watch, activate: false)
    defer { watch.stop() }
    let notActivated = try waiter.wait(seconds: 0.1)
    #expect(!notActivated.isMet, "running but not activated is not up")
    #expect(notActivated.status.watch.isRunning && !notActivated.status.watch.isActivated)
    try watch.session.activate()
    let activated = try waiter.wait(seconds: 0)
    #expect(activated.isMet && activated.status.watch.isActivated)
  }

  @Test func aWaitThatBeganBeforeTheDeviceStartedEndsWhenItActivates() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let wait = BackgroundWait(
      PairWaiter(store: home.store, pair: pair.name, goal: .activated(.phone)), seconds: 60)
    let first = wait.waiting.wait(seconds: 20) { !$0.isEmpty }.first
    #expect(first?.phone.isRunning == false)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    defer { phone.stop() }
    let outcome = try #require(try wait.result()?.get())
    #expect(outcome.isMet && outcome.status.phone.runningPID == getpid())
  }

  @Test func reachableNeedsBothDevicesUp() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let waiter = PairWaiter(store: home.store, pair: pair.name, goal: .reachable)
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { watch.stop() }
    #expect(try !waiter.wait(seconds: 0.1).isMet)
    let wait = BackgroundWait(waiter, seconds: 60)
    _ = wait.waiting.wait(seconds: 20) { !$0.isEmpty }
    let phone = try DeviceUnderTest(home.store, pair.phone)
    defer { phone.stop() }
    let outcome = try #require(try wait.result()?.get())
    #expect(outcome.isMet && outcome.status.isReachable)
  }

  @Test func aMissingPairOrOneDeletedWhileWaitingIsSaid() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let missing = try PairStore.name("nope")
    #expect(throws: PairStoreError.noSuchPair(missing)) {
      try PairWaiter(store: home.store, pair: missing, goal: .activated(.watch)).wait(seconds: 1)
    }
    let pair = try makePair(home)
    let wait = BackgroundWait(
      PairWaiter(store: home.store, pair: pair.name, goal: .activated(.watch)), seconds: 60)
    _ = wait.waiting.wait(seconds: 20) { !$0.isEmpty }
    try home.store.delete(pair.name)
    let result = try #require(wait.result())
    #expect(throws: PairStoreError.noSuchPair(pair.name)) { try result.get() }
  }
}
