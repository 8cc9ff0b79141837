import Dashboard
import DashboardRuntime
import Dispatch
import FleetModel
import Glibc
import Synchronization
import TestSupport
import Testing

/// The fleet's source holds at most so many bytes of payloads waiting to be checked: beyond the
/// bound a message is dropped and counted with the reason, so a flood cannot grow the dashboard
/// without bound (2,000 payloads of 650 KB made it 1.7 GB), and every message is either handed
/// over or counted.
@Suite(
  .enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"), .serialized,
  .hangLimit)
struct FleetSourceBoundTests {
  @Test func messagesBeyondTheBoundAreDroppedAndCountedNotHeld() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    try FleetQueueTests.publishFleet(broker, machines: 5, mailboxes: 20)
    let expected = 5 * (20 + 2)
    let counts = Mutex((kept: 0, fellBehind: 0))
    let accounted = DispatchSemaphore(value: 0)
    let source = FleetSource(
      broker: broker.address, clientIdentifier: "fleet-bound-\(getpid())", pendingByteLimit: 4096)
    source.start { message in
      guard case .fleet(let batch, _) = message else { return }
      let done = counts.withLock { counts -> Bool in
        let before = counts.kept + counts.fellBehind
        for message in batch {
          switch message {
          case .presence, .bridgeInfo, .mailbox: counts.kept += 1
          case .dropped(let reason) where reason.contains("the dashboard fell behind"): counts.fellBehind += 1
          default: break
          }
        }
        return before < expected && counts.kept + counts.fellBehind >= expected
      }
      if done { accounted.signal() }
    }
    defer { source.cancel() }
    let arrived = accounted.wait(timeout: .now() + 20) == .success
    let final = counts.withLock { $0 }
    #expect(arrived, "\(final) of \(expected)")
    // 110 payloads of about 900 bytes arrive at once: a 4 KiB bound holds a handful per batch.
    #expect(final.fellBehind > 0 && final.kept > 0, "\(final)")
  }
}
