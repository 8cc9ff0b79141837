/// A sorted set of disjoint, inclusive scalar ranges, searched by binary search.
struct ScalarRanges: Sendable {
  /// Flattened `first, last` pairs, ascending.
  let bounds: [UInt32]

  /// `bounds` must hold ascending, non-overlapping `first, last` pairs (the generator's output).
  init(bounds: [UInt32]) { self.bounds = bounds }

  /// Whether `value` lies in one of the ranges.
  func contains(_ value: UInt32) -> Bool {
    var low = 0
    var high = bounds.count / 2
    while low < high {
      let middle = (low + high) / 2
      if value > bounds[2 * middle + 1] {
        low = middle + 1
      } else if value < bounds[2 * middle] {
        high = middle
      } else {
        return true
      }
    }
    return false
  }

  /// The number of ranges.
  var count: Int { bounds.count / 2 }
}
