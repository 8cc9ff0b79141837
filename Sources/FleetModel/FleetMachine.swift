import ArchivedValues
import MailboxModel
import WormholeVocabulary

/// One bridged machine as the broker described it: its name, whether its bridge is online,
/// whether it accepts remote writes, and its directories' mailboxes with the versions this
/// dashboard saw of each (the current one and, oldest first, earlier ones).
public struct FleetMachine: Sendable {
  /// The machine's name as its bridge published it (hostile: show it through `DisplayText`).
  public let name: String
  public internal(set) var presence: FleetPresence = .unknown
  /// What its `BridgeInfo` said, or `nil` when it published none.
  public internal(set) var remoteWrites: RemoteWritePolicy?
  /// How many mailboxes its `BridgeInfo` says the bridge publishes, `nil` when it did not say
  /// (a bridge before the count, or no info).
  public internal(set) var claimedMailboxCount: Int?
  /// Mailboxes by directory (the directory's whole path on that machine), then identifier.
  public internal(set) var directories: [FileName: [FileName: Mailbox]] = [:]
  /// The payloads as published (JSON objects), kept only when the state was made to keep them
  /// (``FleetState/keepsPayloads``), by directory then identifier.
  public internal(set) var payloads: [FileName: [FileName: String]] = [:]
  /// The directory paths, sorted (kept as directories appear).
  public internal(set) var directoryPaths: [FileName] = []
  /// Its traffic entries seen lately, so that a backlog adds only the others.
  public internal(set) var recentTraffic = RecentTraffic()

  public init(name: String) { self.name = name }

  /// The mailbox `identifier` of `directory`, if the bridge published it.
  public func mailbox(_ identifier: FileName, in directory: FileName) -> Mailbox? {
    directories[directory]?[identifier]
  }

  /// Mailboxes holding a message, over every directory.
  public var presentCount: Int {
    directories.values.reduce(0) { total, mailboxes in
      total + mailboxes.values.reduce(0) { $0 + ($1.countsAsPresent ? 1 : 0) }
    }
  }

  /// Mailboxes holding a message in `directory`.
  public func presentCount(in directory: FileName) -> Int {
    directories[directory]?.values.reduce(0) { $0 + ($1.countsAsPresent ? 1 : 0) } ?? 0
  }

  /// How many mailboxes its bridge says it publishes that did not arrive (`nil` when none is
  /// missing or the bridge does not say): a broker drops a subscriber's messages beyond its
  /// queue without a word (mosquitto's `max_queued_messages`), so only the count tells.
  public var missingMailboxCount: Int? {
    guard let claimed = claimedMailboxCount else { return nil }
    let missing = claimed - presentCount
    return missing > 0 ? missing : nil
  }

  /// The sentence that says a shortfall, `nil` without one:
  /// `machine M: 30 of 50 mailboxes arrived: the broker may have dropped them (max_queued_messages)`.
  public var shortfall: String? {
    guard missingMailboxCount != nil, let claimed = claimedMailboxCount else { return nil }
    return
      "machine \(DisplayText.field(name)): \(presentCount) of \(claimed) mailboxes arrived: the broker may have dropped them (max_queued_messages)"
  }

  /// Why a remote pass, clear or replay on this machine is refused, or `nil` when its bridge
  /// accepts them.
  public var remoteWriteRefusal: String? {
    if let reason = remoteWrites?.reason, remoteWrites?.isAllowed == false, !reason.isEmpty { return reason }
    // A bridge killed (its Last Will) leaves an info that says writes are on: nobody listens.
    if presence == .offline { return "bridge \(name) is offline" }
    if let remoteWrites, remoteWrites.isAllowed { return nil }
    if let reason = remoteWrites?.reason, !reason.isEmpty { return reason }
    return "bridge \(name) does not accept remote writes"
  }
}
