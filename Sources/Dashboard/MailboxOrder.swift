import MailboxModel
import WormholeVocabulary

/// The identifiers of one directory in the order the tree shows them, kept up to date as
/// mailboxes change instead of sorted for every frame: a new identifier is inserted in place, a
/// changed one moves (under recency and activity), so a frame costs only its visible rows.
struct MailboxOrder: Sendable {
  private(set) var identifiers: [FileName] = []
  private(set) var sort: SortOrder

  init(sort: SortOrder) { self.sort = sort }

  /// Sorts every identifier of `directory` from scratch (a new branch, or a new sort order).
  init(sort: SortOrder, directory: DirectoryState) {
    self.sort = sort
    identifiers = directory.mailboxes.values.sorted { Self.precedes($0, $1, sort: sort) }.map(\.identifier)
  }

  var count: Int { identifiers.count }

  /// Whether `left` comes before `right` under `sort`; ties go by identifier bytes.
  static func precedes(_ left: Mailbox, _ right: Mailbox, sort: SortOrder) -> Bool {
    switch sort {
    case .name: break
    case .recency: if left.lastChange != right.lastChange { return left.lastChange > right.lastChange }
    case .activity:
      if left.versionCount != right.versionCount { return left.versionCount > right.versionCount }
    }
    return left.identifier < right.identifier
  }

  /// Puts `identifier` where it belongs after it appeared or changed in `directory`.
  mutating func update(_ identifier: FileName, in directory: DirectoryState) {
    guard let mailbox = directory.mailboxes[identifier] else {
      if let index = index(of: identifier, in: directory) { identifiers.remove(at: index) }
      return
    }
    if let index = index(of: identifier, in: directory) {
      if sort == .name { return }
      identifiers.remove(at: index)
    }
    // Binary search for the place; `directory` has every other mailbox's current keys.
    var low = 0
    var high = identifiers.count
    while low < high {
      let middle = (low + high) / 2
      let other = directory.mailboxes[identifiers[middle]]
      if let other, Self.precedes(other, mailbox, sort: sort) { low = middle + 1 } else { high = middle }
    }
    identifiers.insert(identifier, at: low)
  }

  /// Where `identifier` is: a binary search by name, else a scan from the front (mailboxes that
  /// change are near the front under recency and activity).
  func index(of identifier: FileName, in directory: DirectoryState) -> Int? {
    if sort == .name {
      var low = 0
      var high = identifiers.count
      while low < high {
        let middle = (low + high) / 2
        if identifiers[middle] < identifier {
          low = middle + 1
        } else {
          high = middle
        }
      }
      return low < identifiers.count && identifiers[low] == identifier ? low : nil
    }
    return identifiers.firstIndex(of: identifier)
  }
}
