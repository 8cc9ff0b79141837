/// The bytes a link has yet to write to its connection, oldest first.
///
/// Written bytes are dropped from the front by moving an offset; the storage is compacted only
/// when the dropped part is at least half of it, so writing out a backlog of `n` bytes copies
/// fewer than `n` bytes in all (removing from the front of an array each time copied the whole
/// rest: quadratic for a large backlog, such as a long transfer queue sent on reconnection).
package struct OutboundBuffer: Sendable {
  private var storage: [UInt8] = []
  private var start = 0
  /// Bytes copied by compaction so far (a test measures the cost with it).
  package private(set) var movedBytes = 0

  package init() {}

  package var isEmpty: Bool { start == storage.count }
  package var count: Int { storage.count - start }

  /// The bytes still to write.
  package var pending: ArraySlice<UInt8> { storage[start...] }

  package mutating func append(_ bytes: some Collection<UInt8>) { storage.append(contentsOf: bytes) }

  /// Drops the first `count` pending bytes (they were written).
  package mutating func consume(_ count: Int) {
    start += min(max(count, 0), self.count)
    if start == storage.count {
      storage.removeAll(keepingCapacity: true)
      start = 0
    } else if start >= 65536 && start * 2 >= storage.count {
      movedBytes += storage.count - start
      storage.removeSubrange(0..<start)
      start = 0
    }
  }

  package mutating func removeAll() {
    storage = []
    start = 0
  }
}
