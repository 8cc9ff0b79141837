import ArchivedValues
import Testing

@testable import FleetModel

/// The order in which remote history versions are evicted holds keys of versions kept, not of
/// every version ever seen: under the byte budget it was never compacted, so a fleet whose
/// histories stay small (or a publisher alternating two payloads on one topic) grew it by a key
/// a change, for ever.
@Suite struct FleetHistoryOrderTests {
  @Test func theEvictionOrderStaysBoundedUnderTheBudget() {
    var fleet = FleetState(historyDepth: 2)
    var now: Int64 = 1_764_500_000_000
    for change in 0..<6000 {
      now += 1
      fleet.apply([Bridged.mailbox("m1", "/home/ci/.wormhole", "flip", .integer(Int64(change % 2)))], at: now)
    }
    #expect(fleet.evictedVersions == 0)
    #expect(fleet.mailbox("flip", in: "/home/ci/.wormhole", machine: "m1")?.history.count == 2)
    // About three times the versions kept and 1,024 more at most.
    #expect(fleet.historyOrderCount <= 3 * 2 + 1024 + 1, "\(fleet.historyOrderCount) keys for 2 versions")
  }
}
