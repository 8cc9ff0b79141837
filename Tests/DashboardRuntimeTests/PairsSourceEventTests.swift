import Dashboard
import DashboardRuntime
import DevicePairing
import DeviceSession
import TestSupport
import Testing

/// The pairs source reads the store when the pair tree changes, not only on its timer.
@Suite struct PairsSourceEventTests {
  private static func context(_ message: DashboardMessage) -> [String]? {
    guard case .pairs(let pairs) = message, let pair = pairs.first(where: { $0.name == "desk" }) else {
      return nil
    }
    return pair.phone.applicationContext.map(\.identifier)
  }

  @Test func aContextChangeAndANewPairShowWithoutWaitingForThePoll() throws {
    let home = TemporaryDirectory(prefix: "wormhole-pairs")
    defer { home.remove() }
    let store = PairStore(home: home.path)
    let pair = try store.create(PairStore.name("desk"))
    let phone = try SimulatedDevice(store: store, address: pair.phone, applicationGroup: "group.test")
    defer { phone.stop() }
    try phone.session.activate()
    // A poll an hour away: whatever shows within the waits below came from an event.
    let source = PairsSource(home: home.path, interval: .seconds(3600))
    let posted = Collector<DashboardMessage>()
    source.start { posted.append($0) }
    defer { source.cancel() }
    #expect(posted.wait { $0.contains { Self.context($0) == [] } }.contains { Self.context($0) == [] })
    _ = try phone.session.updateApplicationContext([1, 2, 3], identifier: "score")
    let changed = posted.wait { $0.contains { Self.context($0) == ["score"] } }
    #expect(changed.contains { Self.context($0) == ["score"] })
    // A pair created after the start is watched too: its device's context shows as well.
    let other = try store.create(PairStore.name("attic"))
    let watch = try SimulatedDevice(store: store, address: other.watch, applicationGroup: "group.test")
    defer { watch.stop() }
    try watch.session.activate()
    _ = try watch.session.updateApplicationContext([4], identifier: "level")
    func level(_ message: DashboardMessage) -> Bool {
      guard case .pairs(let pairs) = message else { return false }
      return pairs.first { $0.name == "attic" }?.watch.applicationContext.map(\.identifier) == ["level"]
    }
    #expect(posted.wait { $0.contains(where: level) }.contains(where: level))
  }
}
