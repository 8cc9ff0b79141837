import MailboxModel
import WormholeVocabulary

/// The traffic entries of one machine seen lately (live or in a backlog), so that each
/// ``TrafficBacklog`` the bridge publishes again adds only the entries not seen yet: those a
/// dashboard missed between the backlog it was handed and its subscription, and none twice.
///
/// An entry is known by what its bridge said of it (time, kind, directory, identifier,
/// transiting type, size, sender, sequence, process): two entries alike in all of them within
/// one millisecond count as one. The newest ``capacity`` are remembered, twice a backlog.
public struct RecentTraffic: Sendable {
  /// How many entries are remembered.
  public static let capacity = 2 * 500

  private struct Key: Hashable {
    var milliseconds: Int64
    var kind: String
    var directory: FileName
    var identifier: FileName
    var transiting: String?
    var size: Int
    var sender: String?
    var sequence: UInt64?
    var processIdentifier: Int32?

    init(_ entry: TrafficEntry) {
      milliseconds = entry.milliseconds
      kind = entry.kind.rawValue
      directory = entry.directory
      identifier = entry.identifier
      transiting = entry.transiting
      size = entry.size
      sender = entry.sender
      sequence = entry.sequence
      processIdentifier = entry.processIdentifier
    }
  }

  private var known: Set<Key> = []
  private var order: [Key] = []

  public init() {}

  /// Remembers `entry`; `false` when it was seen already.
  @discardableResult
  public mutating func insert(_ entry: TrafficEntry) -> Bool {
    let key = Key(entry)
    guard known.insert(key).inserted else { return false }
    order.append(key)
    if order.count > Self.capacity + Self.capacity / 4 {
      let excess = order.count - Self.capacity
      for old in order.prefix(excess) { known.remove(old) }
      order.removeFirst(excess)
    }
    return true
  }
}
