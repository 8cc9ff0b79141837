/// A sender's outstanding transfers in id order, cheap to take from the front.
///
/// Acknowledgements arrive in order, so the oldest transfer is almost always the one removed:
/// that takes an offset's move, not a shift of every later transfer (which made acknowledging
/// a long queue quadratic). Any other transfer (a cancelled one) is found by binary search.
package struct TransferQueue: Sendable {
  private var storage: [FileTransfer]
  private var start = 0

  /// The queue of `transfers`, put in id order.
  package init(_ transfers: [FileTransfer] = []) { storage = transfers.sorted { $0.id < $1.id } }

  /// The transfers, oldest first.
  package var transfers: ArraySlice<FileTransfer> { storage[start...] }

  package var isEmpty: Bool { start == storage.count }

  /// Adds a transfer whose id is larger than every queued one.
  package mutating func append(_ transfer: FileTransfer) { storage.append(transfer) }

  /// Whether transfer `id` is queued.
  package func contains(_ id: UInt64) -> Bool { index(of: id) != nil }

  /// Removes transfer `id`; `false` when it is not queued.
  package mutating func remove(_ id: UInt64) -> Bool {
    guard let index = index(of: id) else { return false }
    if index == start {
      start += 1
      if start == storage.count {
        storage.removeAll(keepingCapacity: true)
        start = 0
      } else if start >= 1024 && start * 2 >= storage.count {
        storage.removeSubrange(0..<start)
        start = 0
      }
    } else {
      storage.remove(at: index)
    }
    return true
  }

  private func index(of id: UInt64) -> Int? {
    var low = start
    var high = storage.count
    while low < high {
      let middle = (low + high) / 2
      if storage[middle].id < id { low = middle + 1 } else { high = middle }
    }
    return low < storage.count && storage[low].id == id ? low : nil
  }
}
