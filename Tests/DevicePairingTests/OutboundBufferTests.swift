import Testing

@testable import DevicePairing

@Suite struct OutboundBufferTests {
  @Test func writingOutABacklogCopiesLessThanTheBacklog() {
    var buffer = OutboundBuffer()
    let frame = [UInt8](repeating: 1, count: 16384)
    for _ in 0..<2000 { buffer.append(frame) }
    let backlog = buffer.count
    // Written out as a socket takes it: a little at a time.
    var written = 0
    while !buffer.isEmpty {
      let chunk = min(212_992, buffer.count)
      #expect(buffer.pending.first == 1)
      buffer.consume(chunk)
      written += chunk
    }
    #expect(written == backlog)
    #expect(buffer.movedBytes < backlog)
  }

  @Test func pendingBytesStayInOrderAcrossCompaction() {
    var buffer = OutboundBuffer()
    buffer.append((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
    buffer.consume(150_000)
    buffer.append([9, 9])
    #expect(Array(buffer.pending.prefix(3)) == [UInt8(truncatingIfNeeded: 150_000), 0xF1, 0xF2])
    #expect(buffer.count == 50_002)
    #expect(Array(buffer.pending.suffix(2)) == [9, 9])
    buffer.consume(1_000_000)
    #expect(buffer.isEmpty)
  }
}
