import MailboxModel

/// The versions the contents pane shows, decoded: a small cache the dashboard keeps as a value
/// (no lock, no decoder). Decodings arrive as messages from the loop's executor, asked for with
/// ``DashboardEffect/decode(directory:identifier:serial:)``; the state never decodes.
///
/// It holds what is wanted now (the versions the selected mailbox's contents and sparkline
/// need) and, besides those, at most ``spareCapacity`` others, forgetting the least recently
/// used first. A decoding that arrives for a version no longer wanted is dropped.
public struct DecodedVersions: Sendable {
  /// Decodings kept beyond the wanted ones, for coming back to a mailbox just left.
  public static let spareCapacity = 4

  private var messages: [UInt64: DecodedMessage] = [:]
  /// Serials asked for whose decoding has not arrived.
  public private(set) var requested: Set<UInt64> = []
  /// Serials of ``messages``, least recently used first.
  private var recency: [UInt64] = []
  /// What the contents pane wants decoded now: a decode whose turn comes after its version
  /// left this set can be skipped (``DashboardMessage/decodeSkipped(serial:)``).
  public private(set) var wanted: Set<UInt64> = []

  public init() {}

  /// How many decodings are kept.
  public var count: Int { messages.count }

  /// The decoding of `serial`, when it arrived and is kept.
  public func message(_ serial: UInt64) -> DecodedMessage? { messages[serial] }

  /// Sets what is wanted now, newest need first; returns the serials to ask for (wanted, not
  /// kept, not asked for already), and marks them asked for, so that each is asked for once.
  mutating func want(_ serials: [UInt64]) -> [UInt64] {
    wanted = Set(serials)
    var missing: [UInt64] = []
    for serial in serials where messages[serial] == nil && !requested.contains(serial) {
      requested.insert(serial)
      missing.append(serial)
    }
    // What is wanted is the most recently used, the first of them last.
    for serial in serials.reversed() where messages[serial] != nil { touch(serial) }
    trim()
    return missing
  }

  /// Keeps a decoding that arrived, when its version is still wanted; returns whether it was
  /// kept (else it is dropped: the operator moved on, and it would be asked for again).
  mutating func store(_ message: DecodedMessage, for serial: UInt64) -> Bool {
    requested.remove(serial)
    guard wanted.contains(serial) else { return false }
    messages[serial] = message
    touch(serial)
    trim()
    return true
  }

  /// A decode asked for was not done (its version was no longer wanted when its turn came): it
  /// is asked for again if it is wanted once more.
  mutating func skipped(_ serial: UInt64) { requested.remove(serial) }

  private mutating func touch(_ serial: UInt64) {
    if let index = recency.lastIndex(of: serial) { recency.remove(at: index) }
    recency.append(serial)
  }

  /// Forgets the least recently used decodings that are not wanted, beyond the spare ones.
  private mutating func trim() {
    var spare = messages.count - wanted.count(where: { messages[$0] != nil })
    var index = 0
    while spare > Self.spareCapacity && index < recency.count {
      let serial = recency[index]
      if wanted.contains(serial) {
        index += 1
      } else {
        recency.remove(at: index)
        messages[serial] = nil
        spare -= 1
      }
    }
  }
}
