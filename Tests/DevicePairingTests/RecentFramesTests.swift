import PeerSession
import Testing

@testable import DevicePairing

/// The keys a broker peer remembers to drop QoS 1's second copies.
@Suite struct RecentFramesTests {
  private func key(source: UInt64, sequence: UInt64) throws -> MQTTPeerLink.FrameKey {
    let identity = try #require(PeerIdentity(name: try PeerName("p\(source)"), id: source))
    let frame = PeerFrame(kind: .data, flags: .reliable, source: identity, destination: 9, sequence: sequence)
    return try #require(MQTTPeerLink.FrameKey(frame))
  }

  /// After the ring wrapped and a peer's keys were forgotten, the oldest keys go first, not the newest.
  @Test func forgettingAfterTheRingWrappedKeepsTheNewestKeys() throws {
    var recent = MQTTPeerLink.RecentFrames()
    let limit = MQTTPeerLink.recentFrames
    // Wrap the ring halfway: keys 0..<limit/2 are evicted, next points into the middle.
    for sequence in 0..<UInt64(limit + limit / 2) {
      #expect(recent.insert(try key(source: 1, sequence: sequence)))
    }
    // One key of another source, then forget that source.
    #expect(recent.insert(try key(source: 2, sequence: 0)))
    recent.forget(sources: [2])
    // Room for one key, then each new key evicts the oldest: limit/4 new ones evict source 1's
    // oldest (from sequence limit/2 on), never those written after the wrap (limit and on).
    for sequence in 0..<UInt64(limit / 4) {
      #expect(recent.insert(try key(source: 3, sequence: sequence)))
    }
    for sequence in UInt64(limit)..<UInt64(limit + limit / 2) {
      #expect(!recent.insert(try key(source: 1, sequence: sequence)), "a newer key was evicted first")
    }
  }
}
