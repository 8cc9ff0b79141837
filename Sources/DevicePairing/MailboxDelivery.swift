import DeviceSession
import Foundation
import Synchronization
import Wormhole
import WormholeVocabulary

/// Where a device stores what it receives as files: the mailboxes of one application group in
/// its own containers (`<device>/AppGroup/<group>/<optional directory>/<identifier>.archive`),
/// written through the `Wormhole` library as MMWormholeSession does, so the device's listeners
/// and the traffic journal see each one. (The only file here that needs Foundation: `Data`.)
public final class MailboxDelivery: Sendable {
  /// The wormhole directory the mailboxes are in.
  public let directory: String
  private let wormhole = Mutex<Wormhole?>(nil)

  /// The mailboxes of `group` (and its optional directory) in the device's containers.
  public init(device: DeviceDirectory, applicationGroup: String, optionalDirectory: String? = nil)
    throws(SessionError)
  {
    do {
      directory = try WormholeHome.directoryPath(
        applicationGroupIdentifier: applicationGroup, optionalDirectory: optionalDirectory, home: device.path)
    } catch { throw .storage(error.description) }
  }

  /// Writes `archive` to the mailbox of `identifier` (atomically) and posts it to the journal.
  /// Throws ``SessionError/invalidIdentifier(_:reason:)`` for an identifier no mailbox can have.
  public func store(_ archive: [UInt8], identifier: String) throws(SessionError) {
    if let reason = MessageIdentifier.problem(with: identifier) {
      throw .invalidIdentifier(identifier, reason: reason)
    }
    try wormhole.withLock { wormhole throws(SessionError) in
      do throws(WormholeError) {
        if wormhole == nil { wormhole = try Self.open(directory) }
        try wormhole?.passArchive(Data(archive), identifier: identifier)
      } catch { throw .storage(error.description) }
    }
  }

  /// Stores received transfers as ``store(_:)-([(identifier:archive:)])`` does, each journaled
  /// with its device fields (`details`: the transfer's shared identifier goes on the mailbox as
  /// its `user.wormhole.transfer` attribute too) as a `session-file` record.
  public func store(transfers: [(identifier: String, archive: [UInt8], details: TrafficDetails)])
    throws(SessionError)
  {
    for item in transfers {
      if let reason = MessageIdentifier.problem(with: item.identifier) {
        throw .invalidIdentifier(item.identifier, reason: reason)
      }
    }
    guard !transfers.isEmpty else { return }
    try wormhole.withLock { wormhole throws(SessionError) in
      do throws(WormholeError) {
        if wormhole == nil { wormhole = try Self.open(directory) }
        try wormhole?.passArchives(transfers, recordedAs: .sessionFile)
      } catch { throw .storage(error.description) }
    }
  }

  /// Journals a session post that wrote no mailbox (a message, a context, the sender's side of a
  /// transfer). Best effort: a journal that cannot be written loses the record, never the post.
  public func record(
    kind: TrafficKind = .pass, identifier: String, bytes: Int, transiting: TransitingType,
    details: TrafficDetails, error: String? = nil
  ) {
    wormhole.withLock { wormhole in
      do throws(WormholeError) {
        if wormhole == nil { wormhole = try Self.open(directory) }
        try wormhole?.record(
          kind: kind, identifier: identifier, bytes: bytes, transiting: transiting, details: details,
          error: error)
      } catch {}
    }
  }

  /// Journals several session posts in order, in one write (``record(kind:identifier:bytes:transiting:details:error:)``
  /// for each, at once). Best effort, as that one is.
  package func record(contentsOf entries: [Wormhole.JournalEntry]) {
    guard !entries.isEmpty else { return }
    wormhole.withLock { wormhole in
      do throws(WormholeError) {
        if wormhole == nil { wormhole = try Self.open(directory) }
        try wormhole?.record(contentsOf: entries)
      } catch {}
    }
  }

  /// The journal's records of this directory, oldest first (the rotated file's too).
  public func journaledRecords() -> [TrafficRecord] {
    TrafficJournalReader(directory: directory, startingAtEnd: false).readAvailable()
  }

  /// Stores a batch in order: each identifier's mailbox is written once, with its last archive,
  /// and the journal gets one record per archive, so listeners hear each. Throws
  /// ``SessionError/invalidIdentifier(_:reason:)`` before writing anything when an identifier
  /// can have no mailbox.
  public func store(_ archives: [(identifier: String, archive: [UInt8])]) throws(SessionError) {
    for item in archives {
      if let reason = MessageIdentifier.problem(with: item.identifier) {
        throw .invalidIdentifier(item.identifier, reason: reason)
      }
    }
    try wormhole.withLock { wormhole throws(SessionError) in
      do throws(WormholeError) {
        if wormhole == nil { wormhole = try Self.open(directory) }
        try wormhole?.passArchives(archives)
      } catch { throw .storage(error.description) }
    }
  }

  private static func open(_ directory: String) throws(WormholeError) -> Wormhole {
    var options = Wormhole.Options()
    options.sender = "device"
    return try Wormhole(directory: directory, options: options)
  }
}
