import MailboxModel

/// Watcher events held back while the operator froze the dashboard (`f`).
///
/// Bounded: past ``capacity`` events the rest are dropped and the directories are read again on
/// resuming, so the model still ends equal to the disk.
public struct FrozenEvents: Sendable {
  /// Events held back at most.
  public static let capacity = 100_000

  var batches: [(events: [ModelEvent], at: Int64)] = []
  public private(set) var eventCount = 0
  /// Changes and journal records waiting: the "N new" badge.
  public private(set) var newCount = 0
  /// Whether events were dropped (a rescan follows on resuming).
  public private(set) var overflowed = false

  init() {}

  mutating func hold(_ events: [ModelEvent], at time: Int64) {
    for event in events {
      switch event {
      case .mailboxChanged, .mailboxRemoved: newCount += 1
      case .journalRecords(_, let records, _): newCount += records.count
      default: break
      }
    }
    guard !overflowed else { return }
    if eventCount + events.count > Self.capacity {
      overflowed = true
      batches = []
      eventCount = 0
      return
    }
    batches.append((events, time))
    eventCount += events.count
  }
}
