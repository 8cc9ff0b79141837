import WormholeVocabulary

/// A mailbox's address in the model.
struct MailboxKey: Hashable, Sendable {
  var directory: FileName
  var identifier: FileName
}

/// Items waiting to be paired, found by mailbox and expired by deadline, both cheaply: a burst
/// of thousands of waiting changes costs a dictionary look-up per event, not a scan.
struct PendingQueue<Item: Sendable>: Sendable {
  private(set) var byKey: [MailboxKey: [(token: UInt64, item: Item)]] = [:]
  /// Deadlines in the order items were added; `now` never goes back, so this is deadline order.
  private var deadlines: [(deadline: Int64, key: MailboxKey, token: UInt64)] = []
  private var start = 0
  private var nextToken: UInt64 = 1
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  /// The earliest deadline of an item still waiting.
  var nextDeadline: Int64? { start < deadlines.count ? deadlines[start].deadline : nil }

  mutating func append(_ item: Item, key: MailboxKey, deadline: Int64) {
    let token = nextToken
    nextToken += 1
    byKey[key, default: []].append((token, item))
    deadlines.append((deadline, key, token))
    count += 1
  }

  func items(for key: MailboxKey) -> [(token: UInt64, item: Item)] { byKey[key] ?? [] }

  /// Removes the items of `key` whose tokens are in `tokens`.
  mutating func remove(_ tokens: Set<UInt64>, key: MailboxKey) {
    guard var items = byKey[key] else { return }
    let before = items.count
    items.removeAll { tokens.contains($0.token) }
    count -= before - items.count
    byKey[key] = items.isEmpty ? nil : items
    dropSpentFront()
  }

  /// Removes every item of the directory.
  mutating func removeAll(directory: FileName) {
    for key in byKey.keys where key.directory == directory {
      count -= byKey[key]?.count ?? 0
      byKey[key] = nil
    }
    dropSpentFront()
  }

  /// Removes and returns the items whose deadline is `now` or earlier, oldest first.
  mutating func expire(now: Int64) -> [(key: MailboxKey, item: Item)] {
    var expired: [(key: MailboxKey, item: Item)] = []
    while start < deadlines.count && deadlines[start].deadline <= now {
      let (_, key, token) = deadlines[start]
      start += 1
      guard var items = byKey[key], let index = items.firstIndex(where: { $0.token == token }) else {
        continue
      }
      expired.append((key, items.remove(at: index).item))
      count -= 1
      byKey[key] = items.isEmpty ? nil : items
    }
    dropSpentFront()
    return expired
  }

  /// Skips deadlines of items already paired, so that ``nextDeadline`` is exact, and compacts.
  private mutating func dropSpentFront() {
    while start < deadlines.count {
      let (_, key, token) = deadlines[start]
      if byKey[key]?.contains(where: { $0.token == token }) == true { break }
      start += 1
    }
    if start == deadlines.count {
      deadlines.removeAll(keepingCapacity: true)
      start = 0
    } else if start > 1_024 && start > deadlines.count / 2 {
      deadlines.removeFirst(start)
      start = 0
    }
  }
}
