/// Ranges of scalars that do not take one terminal column, each with the columns it takes.
struct ScalarWidths: Sendable {
  /// Flattened `first, last, columns` triples, ascending.
  let entries: [UInt32]

  /// `entries` must hold ascending, non-overlapping `first, last, columns` triples (the
  /// generator's output).
  init(entries: [UInt32]) { self.entries = entries }

  /// The columns of `value` when a range holds it; `nil` when none does (one column).
  func columns(of value: UInt32) -> Int? {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      if value > entries[3 * middle + 1] {
        low = middle + 1
      } else if value < entries[3 * middle] {
        high = middle
      } else {
        return Int(entries[3 * middle + 2])
      }
    }
    return nil
  }

  /// The number of ranges.
  var count: Int { entries.count / 3 }
}
